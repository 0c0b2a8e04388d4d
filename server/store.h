#pragma once
// The coordinator's state in one SQLite file: sweeps, jobs and their leases, workers, metric points.
// Every public method is one transaction and is safe to call from any thread.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/metric.h"
#include "core/sweep/sweep.h"
#include "gammalab/v1/gammalab.pb.h"
#include "server/sqlite.h"

namespace gammalab {

namespace v1 = ::gammalab::v1;

std::int64_t now_ms();

struct SubmitResult {
  v1::Sweep sweep;
  int jobs_created = 0;
  int jobs_reused = 0;
};

struct Lease {
  v1::Job job;
  int attempt = 0;
};

struct HeartbeatResult {
  bool known = false;
  std::vector<std::string> cancel_job_ids;
  std::vector<std::string> lost_job_ids;
};

struct IngestResult {
  std::int64_t received = 0;
  std::int64_t stored = 0;
};

class Store {
 public:
  // Opens or creates the database and applies pending migrations.
  explicit Store(const std::string& path);
  ~Store();

  // ---- sweeps and jobs
  // Stores the sweep and one pending job per expanded job. Unless `rerun`, a job whose config hash matches a
  // succeeded job elsewhere is stored as succeeded, reusing that job's metric points.
  SubmitResult create_sweep(const Sweep& sweep, const std::string& yaml, const std::string& file_name, bool rerun);
  std::vector<v1::Sweep> list_sweeps();
  std::optional<v1::Sweep> find_sweep(const std::string& id_or_name);
  std::vector<v1::Job> list_jobs(const std::string& sweep_id, const std::vector<v1::JobState>& states = {});
  std::optional<v1::Job> find_job(const std::string& id_or_path);  // id, or SWEEP/JOB-NAME
  // Pending jobs become cancelled now; leased and running ones are stopped by their worker.
  int cancel(const std::string& sweep_id, const std::vector<std::string>& job_ids);
  // A failed or cancelled job goes back to pending with a fresh attempt budget.
  std::optional<v1::Job> retry(const std::string& job_id);

  // ---- workers and leases
  std::string register_worker(const std::string& hostname, int slots, const std::vector<std::string>& gpus,
                              const std::string& requested_id);
  HeartbeatResult heartbeat(const std::string& worker_id, const std::vector<std::pair<std::string, int>>& running,
                            bool draining, std::int64_t lease_timeout_ms);
  // Highest priority first; among equal priorities the sweep served longest ago. One transaction.
  std::optional<Lease> lease(const std::string& worker_id, std::int64_t lease_timeout_ms);
  // Returns false when the worker no longer holds this attempt of the job (the report is stale).
  bool finish(const std::string& worker_id, const std::string& job_id, int attempt, v1::JobOutcome outcome,
              const std::string& error);
  // Jobs whose lease ran out go back to pending (or fail after max_attempts). Returns how many.
  int expire_leases();
  std::vector<v1::Worker> list_workers(std::int64_t worker_timeout_ms);

  // ---- metrics
  IngestResult add_metrics(const std::string& job_id, int attempt, const std::vector<MetricPoint>& points);
  // Points of one job ordered by (name, step); names empty = all.
  std::vector<MetricPoint> metrics(const std::string& job_id, const std::vector<std::string>& names,
                                   std::int64_t after_step = -1);

  // ---- scaling-law fits
  struct FitInput {
    std::string job_id, job_name, config_json;
    std::vector<MetricPoint> val_loss, train_loss;
  };
  // Succeeded jobs of a sweep with their loss curves: what a fit reads.
  std::vector<FitInput> fit_inputs(const std::string& sweep_id);
  // Ids of the succeeded jobs of every sweep that has any.
  std::map<std::string, std::vector<std::string>> succeeded_jobs_by_sweep();
  // Stores a new version; returns it.
  int add_fit(const std::string& sweep_id, const std::string& law, const std::string& group_by,
              const std::vector<std::string>& job_ids, const std::string& report_json);
  std::vector<v1::Fit> fits(const std::string& sweep_id, bool latest_only);

  // ---- change notification (for watch streams): a counter bumped by every write.
  std::uint64_t version();
  // Waits until version() != seen or the timeout passes; returns the current version.
  std::uint64_t wait_for_change(std::uint64_t seen, std::chrono::milliseconds timeout);

 private:
  v1::Job read_job(sql::Statement& s);
  v1::Sweep read_sweep(sql::Statement& s);
  std::int64_t metric_name_id(const std::string& name);
  void changed();

  std::mutex mutex_;
  std::condition_variable change_cv_;
  std::uint64_t version_ = 0;
  sql::Database db_;
  sql::StatementCache statements_;
  std::map<std::string, std::int64_t> name_ids_;
};

// "pending" <-> JOB_STATE_PENDING, ...
std::string state_name(v1::JobState state);
v1::JobState parse_state(const std::string& name);

}  // namespace gammalab
