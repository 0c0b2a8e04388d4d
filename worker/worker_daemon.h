#pragma once
// The worker daemon: registers with the coordinator, leases jobs for its slots, runs each as a gammalab-train
// child process, relays its metric lines, heartbeats its leases, stops jobs on cancel, drains on SIGTERM.
// A job of N ranks (its config's world_size) takes N slots; its trainer starts the ranks itself and ends when any
// rank fails, so the worker treats it as one child (docs/distributed.md). A job that spans M workers takes
// N / M slots of each: this worker runs its node's share of the ranks; node 0 hosts their rendezvous and
// reports where, and alone relays metrics.
//
// Threads: run() (registration, leasing, reaping), heartbeat_loop() (heartbeats, cancel and lost-lease stops,
// kill escalation) and one thread per running job (run_job: the child, its metric lines, the outcome). Locks are
// taken in the order jobs_mutex_ -> RunningJob::mutex; id_mutex_ is never held with another.
#include <absl/base/thread_annotations.h>
#include <absl/synchronization/mutex.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <list>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "core/host_port.h"
#include "gammalab/v1/gammalab.grpc.pb.h"
#include "core/job_config.h"
#include "worker/child_process.h"
#include "worker/gpu_usage.h"
#include "worker/metric_relay.h"
#include "worker/program_contract.h"
#include "worker/worker_health.h"
#include "worker/worker_options.h"

namespace gammalab {

class WorkerDaemon {
 public:
  explicit WorkerDaemon(WorkerOptions options);
  ~WorkerDaemon();
  // Runs until drained; returns the process exit code.
  int run();
  // Stop leasing; running jobs checkpoint (SIGTERM to the trainer) and are handed back; trainers still running
  // after --drain-grace-ms are killed. Async-signal-safe.
  void request_drain() { drain_ = true; }
  // Drain without waiting: kill the trainers now (their jobs are requeued as failed attempts). Async-signal-safe.
  void request_stop_now() {
    drain_ = true;
    stop_now_ = true;
  }
  // For /readyz. Thread-safe.
  WorkerHealth health() ABSL_LOCKS_EXCLUDED(jobs_mutex_);

 private:
  struct RunningJob {
    // Set before the job's thread starts, then only read.
    std::string job_id;
    int attempt = 0;
    std::vector<int> slots;  // the worker's slots it takes: one per rank (the job's gpus)
    // Of a job that spans workers: this worker's node of `nodes`, and (node > 0) node 0's rendezvous.
    int node = 0, nodes = 1;
    HostPort rendezvous;
    std::thread thread;  // joined by run() once `done`
    absl::Mutex mutex;
    // The trainer: created and reset by run_job; signalled by stop_child from any thread.
    std::unique_ptr<ChildProcess> child ABSL_GUARDED_BY(mutex);
    // When a SIGTERMed trainer gets SIGKILL (heartbeat_loop escalates); max() = no stop pending.
    std::chrono::steady_clock::time_point kill_at ABSL_GUARDED_BY(mutex) = std::chrono::steady_clock::time_point::max();
    // Why some of this attempt's metric points will never be stored (the coordinator refused them, or a metric
    // line could not be read); empty while none are lost. Such an attempt cannot succeed (run_job).
    std::string lost_points ABSL_GUARDED_BY(mutex);
    // Flags read without the lock: cancel and lost are set by heartbeat_loop (the coordinator said so) and read by
    // run_job for the outcome; done is set by run_job as its last act and read by run() to reap the job.
    std::atomic<bool> cancel{false}, lost{false}, done{false};
  };

  bool register_once();
  void heartbeat_loop();
  // One attempt of a job, on its own thread: its files, its trainer, the outcome reported. Its steps follow.
  void run_job(RunningJob& job, v1::LeaseJobResponse lease);
  // The job's files for this node, relative to the shared root.
  struct AttemptFiles {
    std::filesystem::path log, config, ckpt;
  };
  static AttemptFiles attempt_files(const RunningJob& job);
  // Throws unless the lease's job id and checkpoint directory are the ones our own layout makes.
  static void check_lease_paths(const RunningJob& job, const v1::LeaseJobResponse& lease, const AttemptFiles& files);
  // Starts the trainer (its stderr to `log_fd`), relays its output until it ends; returns its exit code. With
  // `program` (a command job, docs/own-program.md) it starts the job's own program instead, and its lines are
  // held to `contract` (worker/program_contract.h).
  int run_trainer(RunningJob& job, const v1::LeaseJobResponse& lease, const AttemptFiles& files, int log_fd,
                  std::ostream& log, const JobConfig* program, ProgramContract* contract);
  // The trainer's stdout into the log, its start (node 0 of a gang: with the rendezvous) and its metric lines to
  // the relay; a program's through its contract, stopping it at the first breach.
  // `stored_last_step`: the job's last stored step when the attempt was leased (-1: none), past which its CPU and
  // memory are reported (worker/process_usage.h).
  void relay_trainer_output(RunningJob& job, ChildProcess& child, std::ostream& log, ProgramContract* contract,
                            std::int64_t stored_last_step);
  // What the attempt's end means for the job: the user's cancel, success, a hand-back when drained, or a failure
  // that another attempt may or cannot mend.
  v1::JobOutcome attempt_outcome(const RunningJob& job, int exit_code) const;
  // The trainer's command line for the job.
  std::vector<std::string> trainer_argv(const RunningJob& job, const v1::LeaseJobResponse& lease,
                                        const std::filesystem::path& config_path,
                                        const std::filesystem::path& ckpt_dir) const;
  // The relay's word that the coordinator stored the job's metric lines up to `step`, handed to its trainer.
  void tell_stored(const std::string& job_id, int attempt, std::int64_t step) ABSL_LOCKS_EXCLUDED(jobs_mutex_);
  // The relay's word that points of the job's attempt were refused and dropped: lose_points for it.
  void tell_refused(const std::string& job_id, int attempt, const std::string& why) ABSL_LOCKS_EXCLUDED(jobs_mutex_);
  // Records the first reason the attempt's run has a hole and stops its trainer: training on would only spend
  // compute on a run that cannot be stored whole.
  void lose_points(RunningJob& job, const std::string& why) ABSL_LOCKS_EXCLUDED(job.mutex);
  void report_finish(RunningJob& job, v1::JobOutcome outcome, const std::string& error, int exit_code);
  // SIGTERM (then SIGKILL after `grace`) or, if `hard`, SIGKILL now to the job's trainer.
  void stop_child(RunningJob& job, bool hard, std::chrono::milliseconds grace) ABSL_LOCKS_EXCLUDED(job.mutex);
  // Drain steps (worker_drain.cpp), called by run() and run_job.
  void drain_running_jobs() ABSL_EXCLUSIVE_LOCKS_REQUIRED(jobs_mutex_);
  void kill_running_jobs() ABSL_EXCLUSIVE_LOCKS_REQUIRED(jobs_mutex_);
  void drain_starting_job(RunningJob& job);
  void hand_back_unstarted(RunningJob& job);
  static std::string drain_kill_note(int exit_code);
  // CUDA_VISIBLE_DEVICES for a job on these slots: their devices, in order (rank r takes the r-th).
  // The device ids (--gpus) the slots hold, and them as CUDA_VISIBLE_DEVICES (none without --gpus).
  std::vector<std::string> job_devices(const std::vector<int>& slots) const;
  std::vector<std::string> device_env(const std::vector<int>& slots) const;
  // The slots no running job takes, lowest first.
  std::vector<int> free_slots() ABSL_LOCKS_EXCLUDED(jobs_mutex_);
  std::string worker_id() const ABSL_LOCKS_EXCLUDED(id_mutex_);

  // Set in the constructor, then only read.
  WorkerOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::shared_ptr<v1::WorkerGateway::Stub> stub_;
  std::unique_ptr<MetricRelay> relay_;  // thread-safe itself
  std::unique_ptr<Nvml> nvml_;          // the GPUs' figures (worker/gpu_usage.h); null without --gpus or a driver

  // The id the coordinator gave at registration; empty before, replaced when the worker registers again.
  mutable absl::Mutex id_mutex_;
  std::string worker_id_ ABSL_GUARDED_BY(id_mutex_);

  // From the registration reply (register_once), read by heartbeat_loop.
  std::atomic<int> heartbeat_interval_ms_{5000};
  // Set by request_drain (a signal handler: hence an atomic, no lock), read by every thread.
  std::atomic<bool> drain_{false};
  // Set when the shared root holds another database's jobs than the coordinator's (core/shared_root_claim.h):
  // the worker leases nothing and exits (2) rather than mix two databases' job files.
  std::atomic<bool> foreign_shared_root_{false};
  // Set by request_stop_now (a signal handler), read by run().
  std::atomic<bool> stop_now_{false};
  // Whether the coordinator answered the last registration or heartbeat; read by health().
  std::atomic<bool> connected_{false};
  // Set by run() once drained, read by heartbeat_loop to end.
  std::atomic<bool> stop_heartbeats_{false};

  // The running jobs: added by run(), reaped by run() once done, walked by heartbeat_loop. The list owns them;
  // a job's thread keeps a reference to its entry until it sets `done`.
  absl::Mutex jobs_mutex_;
  std::list<std::unique_ptr<RunningJob>> jobs_ ABSL_GUARDED_BY(jobs_mutex_);
};

}  // namespace gammalab
