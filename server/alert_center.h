#pragma once
// The coordinator's alert rules that need more than one write to decide (core/alert.h): the loss spike (over an
// attempt's recent train/loss points, fed from the metric path) and the stall (a running job whose reported
// step has not moved for the stall time, or a leased one whose trainer has not started in that time, read from
// the store every check). A diverged run is decided by its
// FinishJob, a lost worker by the lease reaper in the store itself. Whatever raised an alert, this class also
// delivers it: a line in the coordinator's log and, when one is set, a POST to the webhook (AlertWebhook),
// reading the store's new alerts in order, so that every rule reaches the same places.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/alert.h"
#include "core/metric.h"
#include "server/alert_webhook.h"
#include "server/store.h"

namespace gammalab {

struct AlertOptions {
  // A train/loss point above this many times the mean of its previous points raises loss_spike; 0: never.
  double loss_spike_ratio = 1.5;
  // A running job whose reported step has not moved for this long raises stalled; 0: never.
  std::int64_t stall_after_ms = 30 * 60 * 1000;
  // Where each alert is POSTed as JSON (http:// or https://); empty: nowhere.
  std::string webhook;
  // How often the stall rule reads the store and new alerts are delivered (not a flag). 0: no thread of its
  // own; the caller calls check() (tests, which set the clock).
  std::int64_t check_interval_ms = 1000;
};

// Checks the options, naming the flag and the value: empty when they may be used.
std::string alert_options_error(const AlertOptions& options);

class AlertCenter {
 public:
  // Starts the checking thread (unless check_interval_ms is 0). Alerts stored before it started are not
  // delivered again.
  AlertCenter(Store& store, AlertOptions options);
  ~AlertCenter();  // stops and joins (an alert not yet POSTed is dropped with a log line)

  // The points a holder's report stored (the gateway calls it after the store took them).
  void on_points(const std::string& job_id, int attempt, const std::vector<MetricPoint>& points)
      ABSL_LOCKS_EXCLUDED(mutex_);
  // An attempt's end as its worker reported it and the store accepted it.
  void on_finished(const std::string& job_id, int attempt, int exit_code, const std::string& error)
      ABSL_LOCKS_EXCLUDED(mutex_);
  // One round of the checking thread at `now`: the stall rule, then the new alerts delivered. Called from one
  // thread at a time (the checking thread's, or the caller's when it has none).
  void check(std::chrono::steady_clock::time_point now) ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  struct Stall {
    int attempt = 0;
    std::int64_t step = -1;
    bool started = false;
    std::chrono::steady_clock::time_point since;
    bool alerted = false;  // raised for this attempt already: no write each round while it stays stalled
  };
  void run();
  // The stall rule over the leased and running jobs; the watches of jobs no longer running are dropped.
  void check_running(std::chrono::steady_clock::time_point now) ABSL_LOCKS_EXCLUDED(mutex_);
  void deliver_new();

  Store& store_;
  const AlertOptions options_;
  std::unique_ptr<AlertWebhook> webhook_;  // null without --alert-webhook
  absl::Mutex mutex_;
  // Per job id: the attempt its watch is of, and the watch. Ended with the attempt.
  std::map<std::string, std::pair<int, LossSpikeWatch>> spikes_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, Stall> stalls_;  // the checking thread's own
  std::int64_t delivered_through_ = 0;   // likewise: the last alert id delivered
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace gammalab
