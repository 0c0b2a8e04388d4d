#pragma once
// The worker daemon: registers with the coordinator, leases jobs for its slots, runs each as a gammalab-train
// child process, relays its metric lines, heartbeats its leases, stops jobs on cancel, drains on SIGTERM.
#include <atomic>
#include <chrono>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "gammalab/v1/gammalab.grpc.pb.h"
#include "worker/child_process.h"
#include "worker/metric_relay.h"
#include "worker/worker_options.h"

namespace gammalab {

class WorkerDaemon {
 public:
  explicit WorkerDaemon(WorkerOptions options);
  ~WorkerDaemon();
  // Runs until drained; returns the process exit code.
  int run();
  // Stop leasing; running jobs checkpoint (SIGTERM to the trainer) and are handed back. Async-signal-safe.
  void request_drain() { drain_ = true; }

 private:
  struct RunningJob {
    std::string job_id;
    int attempt = 0;
    int slot = 0;
    std::mutex mutex;
    std::unique_ptr<ChildProcess> child;
    std::atomic<bool> cancel{false}, lost{false}, handed_back{false}, done{false};
    std::chrono::steady_clock::time_point kill_at = std::chrono::steady_clock::time_point::max();
    std::thread thread;
  };

  bool register_once();
  void heartbeat_loop();
  void run_job(RunningJob& job, v1::LeaseJobResponse lease);
  void report_finish(RunningJob& job, v1::JobOutcome outcome, const std::string& error, int exit_code);
  void stop_child(RunningJob& job, bool hard);
  std::vector<std::string> slot_env(int slot) const;
  int free_slot();

  WorkerOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::shared_ptr<v1::WorkerGateway::Stub> stub_;
  std::unique_ptr<MetricRelay> relay_;
  std::mutex id_mutex_;
  std::string worker_id_;
  std::atomic<int> heartbeat_interval_ms_{5000};
  std::atomic<bool> drain_{false}, stop_heartbeats_{false};
  std::mutex jobs_mutex_;
  std::list<std::unique_ptr<RunningJob>> jobs_;
};

}  // namespace gammalab
