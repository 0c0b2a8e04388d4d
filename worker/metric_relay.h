#pragma once
// Relays metric points from running jobs to the coordinator without losing any.
// Points wait in a buffer until a ReportMetrics stream that carried them has completed with OK; while the
// coordinator is unreachable they stay buffered and are sent when it returns. The coordinator ignores points
// it already has, so resending after an unclear failure is safe. A report the coordinator refuses as such (a
// point out of range, an unknown job: INVALID_ARGUMENT or NOT_FOUND) would be refused again: it is dropped,
// and its listener hears which job and attempt lost points and why. A run with a hole cannot be reported as a
// success, so the worker fails that attempt (worker_daemon.cpp); the relay itself never hides a drop.
// After each stream it tells its listener, per job and attempt, the last step of a batch the coordinator stored
// with every batch of that job before it: what the job's trainer need no longer keep (worker_daemon.cpp feeds it
// to the trainer's stdin, worker/trainer/stored_step_feed.h).
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/metric.h"
#include "gammalab/v1/gammalab.grpc.pb.h"

namespace gammalab {

class MetricRelay {
 public:
  // Called on the relay's thread, with no lock of the relay held.
  using StoredListener = std::function<void(const std::string& job_id, int attempt, std::int64_t step)>;
  // Called on the relay's thread, with no lock of the relay held, before flush() of that job returns.
  using RefusedListener = std::function<void(const std::string& job_id, int attempt, const std::string& why)>;
  MetricRelay(std::shared_ptr<v1::WorkerGateway::Stub> stub, StoredListener on_stored = {},
              RefusedListener on_refused = {});
  ~MetricRelay();  // stops after a last attempt to send what is buffered

  void add(const std::string& job_id, int attempt, std::vector<MetricPoint> points) ABSL_LOCKS_EXCLUDED(mutex_);
  // Blocks until every point added so far for `job_id` has been acknowledged.
  void flush(const std::string& job_id) ABSL_LOCKS_EXCLUDED(mutex_);
  std::size_t buffered() ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  struct Batch {
    std::string job_id;
    int attempt = 0;
    std::vector<MetricPoint> points;
  };
  void run() ABSL_LOCKS_EXCLUDED(mutex_);
  grpc::Status send(const std::vector<Batch>& batches);  // one ReportMetrics stream
  // Sends a prefix of the queue; returns how many of its batches are done with: stored, or dropped because the
  // coordinator refused them (a point out of range, an unknown job). The rest stay buffered.
  std::size_t send_each(const std::vector<Batch>& batches);

  // Tells on_stored_ the last step of each job's batches among `batches`, all stored.
  void report_stored(const std::vector<Batch>& batches) const;

  std::shared_ptr<v1::WorkerGateway::Stub> stub_;
  StoredListener on_stored_;     // set in the constructor, then only read
  RefusedListener on_refused_;   // likewise
  absl::Mutex mutex_;
  std::deque<Batch> queue_ ABSL_GUARDED_BY(mutex_);
  std::size_t in_flight_ ABSL_GUARDED_BY(mutex_) = 0;  // batches at the front of queue_ being sent now
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread thread_;
};

}  // namespace gammalab
