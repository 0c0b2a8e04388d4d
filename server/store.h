#pragma once
// The coordinator's state in one SQLite file: sweeps, jobs and their leases, workers, metric points, fits.
// Every public method is one transaction and is safe to call from any thread. Writes take the store's mutex and
// run on its one read-write connection; reads run on pooled read-only connections (server/store/read_pool.h),
// each in a read transaction of its own: a read sees one committed snapshot, the state after every write that
// returned before it began, and never waits for a write nor holds one up. At most one read per core runs at
// once; a read beyond them waits for another read, never for a write. The workers' checks of their own rows
// read on connections of their own, so that no number of dashboard reads holds up a worker's call.
// Every write that changes a job's state checks the transition against core/job_state.h first.
// The methods are defined by entity under server/store/: sweeps.cpp, jobs.cpp, leases.cpp, metrics.cpp,
// fits.cpp, workers.cpp, job_changes.cpp (what changed since a watch's last round), loss_tails.cpp (the ends of
// the loss curves), job_events.cpp (a job's history, written by the others in each state change's transaction;
// rows.h: the row readers they share); server/store.cpp has the change notification.
// It speaks core's types only (core/sweep_record.h, core/job_record.h, core/worker_record.h, core/fit_record.h):
// no generated message passes its door; the gRPC and HTTP doors convert (proto/convert.h).
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/alert.h"
#include "core/annotation.h"
#include "core/fit_record.h"
#include "core/saved_view.h"
#include "core/job_record.h"
#include "core/job_state.h"
#include "core/metric.h"
#include "core/metric_replay.h"
#include "core/scaling/imported_runs.h"
#include "core/scaling/job_points.h"
#include "core/sweep/sweep.h"
#include "core/sweep_record.h"
#include "core/job_stage.h"
#include "core/worker_record.h"
#include "server/sqlite.h"
#include "server/store/group_commit.h"
#include "server/store/read_pool.h"

namespace gammalab {

std::int64_t now_ms();

struct SubmitResult {
  SweepRecord sweep;
  int jobs_created = 0;
  int jobs_reused = 0;
};

struct Lease {
  JobRecord job;
  int attempt = 0;
  // A job that spans workers (job.nodes > 1): this worker is node `node` of them; node > 0 gets node 0's
  // rendezvous address, "host:port".
  int node = 0;
  std::string rendezvous;
  // What the store has of the job's metrics (core/metric_replay.h); nullopt: nothing.
  std::optional<StoredMetrics> stored;
};

struct HeartbeatResult {
  bool known = false;
  std::vector<std::string> cancel_job_ids;
  std::vector<std::string> lost_job_ids;
};

struct IngestResult {
  std::int64_t received = 0;
  std::int64_t stored = 0;
  // A refused report stores nothing, no metric name either. kUnknownJob: no job has that id.
  // kStepBeyondJob: a point's step is past the job's last step. kStepBackwards: a point's step comes before one
  // its attempt already reported for that metric (and is not a resend of a stored point).
  // With an IngestFence: kNotHolder: the attempt does not hold the job (stale or unknown); kOtherToken: the job
  // is held by a worker of another token; kRateLimited: the fence's admit() said no.
  // kBadBranchPoint: a branch_point point at a step the job did not declare (JobRecord::branch_points), or whose
  // value is not its step: it would release branches with no checkpoint to start from.
  enum class Refusal {
    kNone, kUnknownJob, kStepBeyondJob, kStepBackwards, kNotHolder, kOtherToken, kRateLimited, kBadBranchPoint,
    kTooManyMetrics
  };
  Refusal refusal = Refusal::kNone;
  std::string reason;  // for a refusal: names the job, the metric, the field and the value
};

// What a worker's report must pass before its points are checked, read with the job's row in the same
// transaction (one read of the row, and no window between the check and the write): the attempt must hold the
// job, through a worker of `token_id` when set; then admit(number of points) is asked, so that nobody but the
// job's holder spends its budget (server/metric_rate_limit.h).
struct IngestFence {
  std::optional<std::int64_t> token_id;
  std::function<bool(std::size_t points)> admit;
};

// One entry of a job's history (table job_events): written in the transaction of the change it records.
struct JobEvent {
  std::int64_t id = 0;
  std::int64_t at_ms = 0;
  std::string kind;   // one of job_event_kind below
  JobState state = JobState::kPending;  // the job's state after it
  int attempt = 0;    // the attempt it concerns; 0 before the first lease and after a retry
  std::string worker_id;        // the worker that held the attempt; empty: none
  std::string worker_hostname;  // that worker's hostname, when it is still known
  std::string detail;           // why: a failed attempt's error, who cancelled, which job's results were reused
};

namespace job_event_kind {
inline constexpr std::string_view kSubmitted = "submitted";        // -> pending
inline constexpr std::string_view kReused = "reused";              // -> succeeded: another job's results
inline constexpr std::string_view kImported = "imported";          // -> succeeded: a run trained elsewhere
inline constexpr std::string_view kLeased = "leased";              // -> leased by a worker, a new attempt
inline constexpr std::string_view kStarted = "started";            // -> running: the trainer started
inline constexpr std::string_view kSucceeded = "succeeded";
inline constexpr std::string_view kFailed = "failed";              // the last attempt failed: -> failed
inline constexpr std::string_view kRequeued = "requeued";          // an attempt failed, others are left: -> pending
inline constexpr std::string_view kHandedBack = "handed_back";     // a draining worker gave it back unused
inline constexpr std::string_view kLeaseExpired = "lease_expired"; // its worker went silent: -> pending or failed
inline constexpr std::string_view kCancelRequested = "cancel_requested";  // its worker is asked to stop it
inline constexpr std::string_view kCancelled = "cancelled";
inline constexpr std::string_view kRetried = "retried";            // failed or cancelled -> pending, by a user
}  // namespace job_event_kind

class Store {
 public:
  // Opens or creates the database and applies pending migrations.
  explicit Store(const std::string& path);
  ~Store();

  // The database's uid (core/uid.h), made by its migration 17 and never changed: a backup keeps it, so a
  // restored database is the same database (core/shared_root_claim.h).
  const std::string& database_uid() const { return database_uid_; }

  // ---- sweeps and jobs
  // Stores the sweep and one pending job per expanded job. Unless `rerun`, a job whose config hash matches a
  // succeeded job elsewhere is stored as succeeded, reusing that job's metric points. With `tune_stage`, the
  // jobs are the sweep's tune stage and the sweep awaits its main stage (add_main_stage).
  SubmitResult create_sweep(const Sweep& sweep, const std::string& yaml, const std::string& file_name, bool rerun,
                            bool tune_stage = false);
  // Runs trained elsewhere (core/scaling/imported_runs.h), checked by the caller (check_imported_run): a sweep
  // of finished jobs, one per run, with its points, stored in one transaction. Its description (where the runs
  // came from) is kept as the sweep's file name.
  SweepRecord import_runs(const std::string& name, const std::string& description,
                          const std::vector<ImportedRun>& runs);
  // ---- tune stages (core/sweep/tune.h)
  // Sweeps whose tune stage has not been resolved yet.
  std::vector<std::string> sweeps_awaiting_main();
  // Every job of the stage ("tune" or "main") with its state; the ends of the succeeded ones' loss curves
  // (loss_tails).
  struct StageJob {
    JobLosses losses;
    JobState state = JobState::kPending;
  };
  std::vector<StageJob> stage_jobs(const std::string& sweep_id, const std::string& stage);
  // Adds the main stage's jobs (reusing finished results as create_sweep does) and stores the picks; false
  // when the sweep no longer awaits its main stage (another call got there first, or it was cancelled).
  bool add_main_stage(const std::string& sweep_id, const Sweep& main, const std::string& tune_report_json,
                      SubmitResult* result = nullptr);
  // Adds a further round of tune jobs (core/sweep/tune_rounds.h), reusing finished results as create_sweep
  // does, skipping any whose config the sweep's tune stage already has (a round added twice adds nothing). The
  // number of jobs added; 0 when the sweep no longer awaits its main stage.
  int add_tune_round(const std::string& sweep_id, const Sweep& round);
  // Ends the wait without a main stage, saying why.
  void refuse_main_stage(const std::string& sweep_id, const std::string& tune_report_json, const std::string& error);
  std::vector<SweepRecord> list_sweeps();  // without source_yaml and tune_report_json (find_sweep has them)
  // Up to `limit` of them with ids above `after_id`, oldest first; `more` says whether others follow.
  std::vector<SweepRecord> list_sweeps_page(std::int64_t after_id, std::size_t limit, bool& more);
  std::optional<SweepRecord> find_sweep(const std::string& id_or_name);
  std::vector<JobRecord> list_jobs(const std::string& sweep_id, const std::vector<JobState>& states = {});
  // One page of list_jobs, in the same order: up to `limit` jobs after the job at `after_ordinal` (-1: from the
  // first), so that no reply grows with the sweep. `next_ordinal` is where the next page starts (-1: none).
  struct JobPage {
    std::vector<JobRecord> jobs;
    std::vector<std::int64_t> ordinals;  // each job's place, for a caller that keeps fewer of them
    std::int64_t next_ordinal = -1;
  };
  JobPage list_jobs_page(const std::string& sweep_id, const std::vector<JobState>& states,
                         std::int64_t after_ordinal, std::size_t limit);
  std::optional<JobRecord> find_job(const std::string& id_or_path);  // id, or SWEEP/JOB-NAME
  // Pending jobs become cancelled now; leased and running ones are stopped by their worker.
  int cancel(const std::string& sweep_id, const std::vector<std::string>& job_ids);
  // A failed or cancelled job goes back to pending with a fresh attempt budget.
  std::optional<JobRecord> retry(const std::string& job_id);
  // The newest `limit` events of a job's history, oldest first; `earlier`: older ones were left out.
  struct JobHistory {
    std::vector<JobEvent> events;
    bool earlier = false;
  };
  JobHistory job_events(const std::string& job_id, std::size_t limit);

  // ---- workers and leases
  // `token_id`: the worker token it registered with (server/tokens.h; nullopt without auth). Re-registering
  // under `requested_id` keeps the id only for the token that holds it (or a worker registered without auth);
  // for another token nothing changes and the result is empty.
  // A new worker (no id, or an id never registered) of a token that already has `quota.max_live` workers whose
  // heartbeat is within `quota.live_within_ms` is refused: the result is empty and `quota.refused` set.
  struct WorkerQuota {
    std::int64_t max_live = 0;  // 0: none
    std::int64_t live_within_ms = 0;
    bool refused = false;
    std::int64_t live = 0;  // the token's live workers, when refused
  };
  std::string register_worker(const std::string& hostname, int slots, const std::vector<std::string>& gpus,
                              const std::string& requested_id, std::optional<std::int64_t> token_id = std::nullopt,
                              WorkerQuota* quota = nullptr);
  // True when a worker with this id exists and registered with another token than `token_id` (or none).
  bool worker_of_other_token(const std::string& worker_id, std::int64_t token_id);
  HeartbeatResult heartbeat(const std::string& worker_id, const std::vector<std::pair<std::string, int>>& running,
                            bool draining, std::int64_t lease_timeout_ms);
  // Highest priority first; among equal priorities the sweep served longest ago. One transaction.
  // A job takes `slots_per_node` slots of one worker (docs/distributed.md): the worker's first pending job in that order
  // among those no larger than its registered slots is leased when it fits the worker's `free_slots` (the
  // caller checks them against the registered slots). When it does not fit yet, nothing is leased: the
  // worker's slots are kept for it as its running jobs end, rather than filled with smaller jobs behind it.
  // A job of `nodes` > 1 is leased as a gang (server/store/gangs.cpp, docs/distributed.md): the first worker
  // it fits holds a place as node 0 and each next one that it fits joins, in preference to any other work; a
  // worker holding a place is leased nothing else. Once `nodes` workers hold places the job is leased (one
  // attempt for all); node 0 gets its lease on its next request, the others once node 0 reported the
  // rendezvous. A gang starts only when enough live workers have the slots, and dissolves when it has formed
  // for longer than `gang_wait_ms` or one of its workers stopped asking.
  std::optional<Lease> lease(const std::string& worker_id, std::int64_t lease_timeout_ms, int free_slots = 1,
                             std::int64_t gang_wait_ms = 120000);
  // The slots a worker registered with; nullopt for an unknown worker.
  std::optional<int> worker_slots(const std::string& worker_id);
  // The slots of each live worker (a heartbeat within `worker_timeout_ms`) that is not draining, largest first.
  std::vector<int> live_worker_slots(std::int64_t worker_timeout_ms);
  // The worker's trainer for this attempt started: leased -> running (already running: nothing changes).
  // Returns false when the worker no longer holds this attempt of the job (the report is stale).
  // `rendezvous`: node 0 of a gang says where its trainer's store is, for the gang's other workers. A gang's
  // other members report their start too; it changes nothing.
  bool start(const std::string& worker_id, const std::string& job_id, int attempt, const std::string& rendezvous = {});
  // Returns false when the worker no longer holds this attempt of the job (the report is stale). Of a gang,
  // any member's failure, cancel or hand-back ends the whole attempt; a member other than node 0 that
  // succeeded only leaves the gang (node 0's report ends the attempt).
  // `end` is the worker's word (never kLeaseExpired, which expire_leases decides).
  // Neither a hand-back nor a worker's fault (kWorkerFault) uses up an attempt, each up to its own bound: the
  // hand-backs past kMaxHandBacks count as failed attempts. A worker's fault keeps the job from that worker for
  // good (job_worker_faults) and pauses the worker for kWorkerFaultPauseMs; the job fails once kMaxWorkerFaults
  // distinct workers failed it alike, or when no live worker is left to try it on. A retry clears both counts.
  static constexpr std::int64_t kMaxHandBacks = 20;
  static constexpr std::int64_t kMaxWorkerFaults = 3;
  static constexpr std::int64_t kWorkerFaultPauseMs = 60 * 1000;
  static constexpr std::int64_t kLiveWorkerMs = 60 * 1000;  // a heartbeat this recent: a worker to try a job on
  // A cooldown branch's failed attempt goes back to the queue for kBranchRetryBackoffMs, doubling with each
  // attempt up to kMaxBranchRetryBackoffMs (its pending reason says so).
  static constexpr std::int64_t kBranchRetryBackoffMs = 10 * 1000;
  static constexpr std::int64_t kMaxBranchRetryBackoffMs = 5 * 60 * 1000;
  bool finish(const std::string& worker_id, const std::string& job_id, int attempt, AttemptEnd end,
              const std::string& error);
  // Jobs whose lease ran out go back to pending (or fail after max_attempts). Returns how many.
  int expire_leases();
  // Every active lease runs at least `grace_ms` from now: at start-up, a coordinator that was down longer than
  // the lease timeout gives workers that kept training the time to reconnect and heartbeat. Returns how many.
  int grant_lease_grace(std::int64_t grace_ms);
  std::vector<WorkerRecord> list_workers(std::int64_t worker_timeout_ms);
  // One page of list_workers, by id: up to `limit` workers with an id above `after_id` (-1: from the first).
  // Every worker process that ever registered has a row, so that a cluster's history never outgrows a reply.
  std::vector<WorkerRecord> list_workers_page(std::int64_t worker_timeout_ms, std::int64_t after_id,
                                              std::size_t limit, bool& more);

  // ---- metrics
  // Stores the points and the job's progress (step, tokens, last loss, speed) when `attempt` holds the job.
  // Never changes the job's state. Checks every point before it writes anything (see IngestResult).
  IngestResult add_metrics(const std::string& job_id, int attempt, const std::vector<MetricPoint>& points,
                           const IngestFence* fence = nullptr);
  // Points of one job with after_step < step <= to_step, ordered by (name, step); names empty = all.
  std::vector<MetricPoint> metrics(const std::string& job_id, const std::vector<std::string>& names,
                                   std::int64_t after_step = -1,
                                   std::int64_t to_step = std::numeric_limits<std::int64_t>::max());
  // The same points a page at a time, so that no reply and no buffer grows with a curve: at most `limit`
  // points, from where `from` says the previous page ended. `next` is set when points remain after these.
  struct MetricsResume {
    std::string name;         // the metric the previous page ended in (names before it are done)
    std::int64_t step = -1;   // the last step of it that page held
  };
  struct MetricsPage {
    std::vector<MetricPoint> points;
    std::optional<MetricsResume> next;
  };
  MetricsPage metrics_page(const std::string& job_id, const std::vector<std::string>& names, std::int64_t after_step,
                           std::int64_t to_step, const std::optional<MetricsResume>& from, std::size_t limit);
  // The same points downsampled per metric to at most `buckets` (>= 1) buckets: exactly what
  // core/metric_downsample.h's downsample() keeps of metrics(...), read from the tiles (server/store/metric_tiles.h)
  // rather than from every point.
  std::vector<MetricPoint> downsampled_metrics(const std::string& job_id, const std::vector<std::string>& names,
                                               std::int64_t after_step, std::int64_t to_step, std::size_t buckets);
  // The end of the job's train and val loss curves, the last kLossTail points of each: all that a final loss
  // (core/scaling/run_point.h: the last evaluation; the mean of the last train points) is computed from.
  // Kept by ingest beside the points (table loss_tails), so that reading them costs one range of one key.
  static constexpr std::int64_t kLossTail = 16;
  JobLosses loss_tails(const std::string& job_id);
  // The runs table of a sweep (the dashboard's /api/sweeps/ID/runs): every job, in list_jobs' order, with its
  // loss_tails, in one read whatever the sweep's size.
  struct Run {
    JobRecord job;
    JobLosses losses;
  };
  std::vector<Run> runs(const std::string& sweep_id);
  // A page of them, as list_jobs_page pages the jobs: up to `limit` runs after the job at `after_ordinal` (-1:
  // from the first); `next_ordinal` is where the next page starts (-1: none).
  struct RunPage {
    std::vector<Run> runs;
    std::vector<std::int64_t> ordinals;
    std::int64_t next_ordinal = -1;
  };
  RunPage runs_page(const std::string& sweep_id, std::int64_t after_ordinal, std::size_t limit);

  // ---- scaling-law fits
  using FitInput = JobLosses;
  // Succeeded jobs of a sweep's stage with the ends of their loss curves (loss_tails): what a fit reads (the
  // main stage; the tune stage's for the tune seed check).
  std::vector<FitInput> fit_inputs(const std::string& sweep_id, const std::string& stage = job_stage::kMain);
  // Ids of the succeeded main-stage jobs of every sweep that has any.
  std::map<std::string, std::vector<std::string>> succeeded_jobs_by_sweep();
  struct LawReport {
    std::string law;          // n | c | chinchilla | isoflop
    std::string report_json;  // core/scaling/fit_report.h
  };
  // Stores a new version holding one report per law, all fitted on `job_ids`; returns the version.
  int add_fit(const std::string& sweep_id, const std::string& group_by, const std::vector<std::string>& job_ids,
              const std::vector<LawReport>& reports);
  // Newest version first, the reports of one version in the order they were stored; latest_only: the reports
  // of the newest version.
  std::vector<FitRecord> fits(const std::string& sweep_id, bool latest_only);
  // A page of fits(sweep_id, false), so that no reply grows with a sweep's refits: every report of at most
  // `versions` (>= 1) versions below `below_version` (none: from the newest). `next_below` is where the next
  // page starts (the last version of this one), -1 when no older version remains.
  struct FitPage {
    std::vector<FitRecord> fits;
    int next_below = -1;
  };
  FitPage fits_page(const std::string& sweep_id, std::optional<int> below_version, std::size_t versions);

  // ---- notes and tags (core/annotation.h): the caller checked the change and that the job is the sweep's
  // (job_id empty: the sweep's own). Applies it in one transaction and returns the annotation after it; one
  // left with no note and no tag is removed. Throws std::invalid_argument when the tags would be too many.
  Annotation annotate(const std::string& sweep_id, const std::string& job_id, const AnnotationChange& change);
  // The sweep's own annotation first (when it has one), then its runs' by job id.
  std::vector<Annotation> annotations(const std::string& sweep_id);
  // Sweeps (by name, file name, note and tags) and annotated runs (by name, note and tags) that match every
  // word, newest sweep first, each before its runs, at most `limit`; `truncated` when more matched.
  std::vector<SearchHit> search(const std::vector<SearchWord>& words, std::size_t limit, bool& truncated);

  // ---- the dashboard's saved views (core/saved_view.h), checked by the caller. A name the owner has already
  // is replaced (same id); beyond view_limits::kViewsPerUser of one owner, std::invalid_argument.
  SavedView save_view(std::int64_t owner, const std::string& name, const std::string& sweep_id,
                      const std::string& settings);
  std::vector<SavedView> views(std::int64_t owner);  // by name
  std::optional<SavedView> view(const std::string& id);
  bool delete_view(const std::string& id);  // false: none had that id

  // ---- alerts (core/alert.h). Stores `alert` (its job_id, attempt, rule, step, value and message; the rest is
  // the store's) unless that job's attempt has one of that rule already: true when it was new. False also when
  // no job has that id.
  bool raise_alert(const Alert& alert);
  // Newest first, at most `limit`: of one sweep (an id or a name; empty: of all), raised after `after_id`.
  // `truncated` when more matched.
  std::vector<Alert> alerts(const std::string& sweep_id, std::int64_t after_id, std::size_t limit, bool& truncated);
  // Alerts stored per rule (Prometheus reads them at scrape time).
  std::map<std::string, std::int64_t> alert_counts();
  // The leased and running jobs' attempt and last reported step (the stall rule's reading), by id.
  struct Progress {
    std::string job_id;
    int attempt = 0;
    std::int64_t step = 0;
    bool started = false;  // running: its trainer started; else leased and not yet
  };
  std::vector<Progress> active_progress();

  // Reads the database (its schema version) under the store's lock: true when it answered. What a health
  // check asks: a store whose lock is held for good, or whose file cannot be read, never answers or says false.
  bool readable();

  // ---- what changed in a sweep (for watch streams), so that a round costs what changed, not the sweep.
  // Every write that changes what a job reads as (and a change of its run's state, for a branch) gives it the
  // next number of one counter for the database (jobs.changed_seq; server/store/job_changes.cpp).
  struct JobChanges {
    std::optional<SweepRecord> sweep;  // its summary (as list_sweeps has it); nullopt: no sweep has that id
    std::vector<JobRecord> jobs;       // its jobs changed after `after_seq`, in the sweep's order (as list_jobs)
    std::int64_t seq = 0;              // the counter as the read saw it: the next call's after_seq
  };
  // One read: the sweep's row (by id, else the newest of that name, as find_sweep) and every job changed by
  // `seq`. after_seq 0: every job of the sweep.
  JobChanges jobs_changed_since(const std::string& sweep_id, std::int64_t after_seq);
  // The counter now: a reader that lists a sweep's jobs whole reads it first, then asks for the changes after it.
  std::int64_t job_change_seq();

  // ---- change notification (for watch streams): a counter bumped by every write.
  std::uint64_t version();
  // Waits until version() != seen or the timeout passes; returns the current version.
  std::uint64_t wait_for_change(std::uint64_t seen, std::chrono::milliseconds timeout);

  // ---- instrumentation: runs `f` on the connection under the store's lock (e.g. to install a trace hook).
  void with_connection(const std::function<void(sqlite3*)>& f);

 private:
  // Helpers for the methods above. The static ones read through the statements of whichever connection the
  // caller holds: the writer's (statements_, under mutex_) or a read's (readers_).
  static SweepRecord read_sweep(sql::StatementCache& statements, sql::Statement& s);
  void insert_jobs(std::int64_t sweep_id, const Sweep& sweep, const std::string& stage, bool rerun,
                   SubmitResult& result) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool raise_alert_locked(const Alert& alert) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);  // raise_alert's write
  static std::optional<JobRecord> read_job_by_id(sql::StatementCache& statements, std::int64_t id);
  std::int64_t metric_name_id(const std::string& name) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // (id, name) of the metrics a read asks for, ordered by name: `names` that exist, or (names empty) every
  // metric the job has points of.
  static std::vector<std::pair<std::int64_t, std::string>> metric_names_of(sql::StatementCache& statements,
                                                                           std::int64_t job_id,
                                                                           const std::vector<std::string>& names);
  // add_metrics' steps. Reports are written in groups, one transaction each (store/group_commit.h), each report
  // in a savepoint of its own: a refused or failed one leaves the others as they would be alone.
  struct IngestReport;
  void write_ingest_group(std::span<IngestReport* const> group) ABSL_LOCKS_EXCLUDED(mutex_);
  IngestResult ingest_report(const std::string& job_id, int attempt, const std::vector<MetricPoint>& points,
                             const IngestFence* fence) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Why a report may not be stored, checked before anything is written (Refusal::kNone:
  // it may): the job and its fence (the attempt holds it, through the token, within the rate), setting
  // `total_steps` when the job exists; then each point's step within the job and never going back.
  std::pair<IngestResult::Refusal, std::string> ingest_refusal(std::int64_t id, int attempt, std::size_t points,
                                                               const IngestFence* fence, std::int64_t& total_steps)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // `stored_heads`: each reported metric's highest stored step (metrics with none left out), for write_points.
  std::pair<IngestResult::Refusal, std::string> order_refusal(std::int64_t id, const std::vector<MetricPoint>& points,
                                                              std::int64_t total_steps,
                                                              std::map<std::string, std::int64_t>& stored_heads)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // How many metrics of its own (metric_names::is_user_metric) the job has stored: one seek per distinct metric of
  // the job (a skip over the table's key), not a scan of its points.
  std::size_t stored_user_metrics(std::int64_t id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Stores the points with their tiles and the job's progress, in the caller's transaction; returns how many
  // were new.
  std::int64_t write_points(std::int64_t id, int attempt, const std::vector<MetricPoint>& points,
                            const std::map<std::string, std::int64_t>& stored_heads)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The last step the job has a point of and the metrics it has there: what a lease tells its trainer.
  static std::optional<StoredMetrics> stored_metrics(sql::StatementCache& statements, std::int64_t job_id);
  // loss_tails' points, appended to `out` (job_id, job_name and config_json are the caller's).
  static void read_loss_tails(sql::StatementCache& statements, std::int64_t job_id, JobLosses& out);
  // Adds the loss points just stored (name ids beside them) to the job's loss_tails and drops what falls out of
  // the last kLossTail, in write_points' transaction.
  void keep_loss_tails(std::int64_t job_id, const std::vector<std::pair<std::int64_t, const MetricPoint*>>& stored)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // A column a change of state writes beside jobs.state: `assignment` is "column = expression" with at most one
  // `?`, bound to `value` (monostate: the expression has none; nullptr: NULL).
  struct ColumnWrite {
    ColumnWrite(std::string_view a) : assignment(a) {}  // NOLINT: {"column = NULL"} in a list of writes
    template <typename V>
    ColumnWrite(std::string_view a, V v) : assignment(a), value(std::move(v)) {}
    std::string_view assignment;
    std::variant<std::monostate, std::int64_t, std::string, std::nullptr_t> value;
  };
  // What a change of state records in the job's history: attempt and worker as the row holds them after the
  // change unless given (worker -1: none).
  struct StateEvent {
    std::string_view kind;
    std::string detail;
    std::optional<std::int64_t> attempt, worker_id;
  };
  // The one way a job's state changes (every lease, start, end, expiry, cancel and retry, gangs and branches
  // too): checks `from` -> `to` against core/job_state.h's table (a refused one is a store bug), writes `to` and
  // `writes` only while the job is still in `from`, and records the event, in the caller's transaction. Returns
  // the job's attempt after the change, or nullopt when the job was not in `from` (nothing written).
  std::optional<std::int64_t> transition(std::int64_t job_id, JobState from, JobState to,
                                         std::initializer_list<ColumnWrite> writes, const StateEvent& event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Appends to the job's history, in the caller's transaction. worker_id -1: none.
  void record_event(std::int64_t job_id, std::string_view kind, JobState state, std::int64_t attempt,
                    std::int64_t worker_id, std::string_view detail = {}) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void changed() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Round robin among sweeps: this one goes to the back of the queue among sweeps of its priority.
  void advance_lease_turn(std::int64_t sweep_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Cooldown branches of the run `parent_id` whose start became possible (store_rows::sql_branch_may_start:
  // the checkpoint reported written, or the run finished) stop waiting, in the caller's transaction. The lease
  // reads only the `waiting` flag, through a partial index of the jobs that are not waiting, so waiting branches
  // cost it nothing however many there are.
  void release_branches(std::int64_t parent_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // A run that ended failed or cancelled: its branches still waiting for a checkpoint it never wrote would wait
  // for ever, and its sweep (and `watch`) never end. They are cancelled with the reason, marked orphaned so
  // that a retry of the run (restore_orphaned_branches) brings them back to wait again.
  void end_orphaned_branches(std::int64_t parent_id, JobState parent) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void restore_orphaned_branches(std::int64_t parent_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Gang leases (server/store/gangs.cpp), in lease()'s transaction.
  struct GangTurn {
    bool held = false;           // the worker holds a place in a gang: it is leased nothing else now
    std::optional<Lease> lease;  // its lease, once its gang is whole (node > 0: and the rendezvous known)
  };
  // Drops places of gangs whose attempt ended or that will not form: one that gathered for longer than
  // `gang_wait_ms`, or one of whose workers stopped asking.
  void prune_gangs(std::int64_t now, std::int64_t gang_wait_ms) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  GangTurn gang_turn(std::int64_t worker, std::int64_t now, std::int64_t lease_timeout_ms)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Takes a place in the gang that has gathered longest among those whose share fits `free_slots`; the last
  // place leases the job. False when there is none to join.
  bool join_gang(std::int64_t worker, std::int64_t now, std::int64_t lease_timeout_ms, int free_slots)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The worker becomes node 0 of a new gang for the pending job.
  void start_gang(std::int64_t job_id, std::int64_t worker, std::int64_t now, std::int64_t lease_timeout_ms)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The attempt ended: its gang's places go.
  void end_gang(std::int64_t job_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The node of `worker` in the running gang of the job's `attempt`, if it is a member.
  std::optional<int> gang_node(std::int64_t job_id, std::int64_t worker, std::int64_t attempt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  absl::Mutex mutex_;
  std::uint64_t version_ ABSL_GUARDED_BY(mutex_) = 0;
  sql::Database db_ ABSL_GUARDED_BY(mutex_);
  std::string database_uid_;  // set once by the constructor
  sql::StatementCache statements_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::int64_t> name_ids_ ABSL_GUARDED_BY(mutex_);  // metric name -> metric_names.id
  // Names name_ids_ took in the transaction in progress: forgotten again if it, or their savepoint, rolls back.
  std::vector<std::string> uncommitted_names_ ABSL_GUARDED_BY(mutex_);
  // Metric reports waiting for, or in, the group being written; at most ~4,096 points a group.
  store_ingest::GroupCommit<IngestReport> ingest_groups_{4096};
  // Reads; opened after migrate() has run on db_ (lazily, on the first read).
  store_read::ReadPool readers_;
  // The workers' own reads (a worker's row, checked on each of its calls), apart from everyone else's: a lease
  // never waits for the connections that a dashboard's reads of large sweeps hold. Each is one lookup by key.
  store_read::ReadPool worker_readers_;
};

}  // namespace gammalab
