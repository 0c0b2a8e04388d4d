#pragma once
// The coordinator's application layer: every operation people and tools call, once, whichever door the call
// came through. The gRPC service (server/coordinator_service.h) and the HTTP API (server/http_api.h) are
// adapters: they read their request's fields, call one operation here and write its answer in their own form.
// So a lookup, a refusal's text, a page's bounds and a pending job's reason are the same through both.
//
// A refusal is an absl::Status: NOT_FOUND (HTTP 404), INVALID_ARGUMENT (400), FAILED_PRECONDITION (409: the
// job's state does not allow it); each message names what, and for a bad field the field, its limit and value.
// Lists are paged (server/coordinator/page.h): one cursor and one set of limits for all of them.
// Rows are core's records (core/sweep_record.h, core/job_record.h, core/worker_record.h, core/fit_record.h), as
// the store returns them; each door converts them to its own form (proto/convert.h). A page's byte budget
// (page.h) counts each row as the gRPC reply encodes it.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/annotation.h"
#include "core/fit_record.h"
#include "core/job_record.h"
#include "core/job_state.h"
#include "core/metric.h"
#include "core/scaling/job_points.h"
#include "core/sweep/diagnostics.h"
#include "core/sweep_record.h"
#include "core/worker_record.h"
#include "server/coordinator/page.h"
#include "server/job_files.h"
#include "server/server_options.h"
#include "server/store.h"

namespace gammalab::coordinator {

// A submitted sweep file: the stored sweep with its job counts, or the file's problems (nothing stored).
struct Submitted {
  std::optional<SweepRecord> sweep;
  int jobs_created = 0;
  int jobs_reused = 0;
  std::vector<SweepDiagnostic> problems;
};

// A row of a sweep's runs table: the job and the ends of its loss curves (the final losses' inputs).
using Run = Store::Run;

// Which points of a job's series: steps in (after_step, to_step].
struct StepRange {
  std::int64_t after_step = -1;
  std::int64_t to_step = std::numeric_limits<std::int64_t>::max();
};

// One job's points in a metrics page.
struct JobSeries {
  std::string job_id;
  std::vector<MetricPoint> points;
};

// What changed of a watched sweep since the last round (see WatchMemory).
struct SweepChanges {
  SweepRecord sweep;           // without its file and tune report: a watcher needs the state only
  std::vector<JobRecord> jobs;  // the jobs that changed (every job in the first round), without their configs
};
// A sweep's jobs written after a change number, with their pending reasons, and what those reasons were worked
// out from. A reader that keeps a sweep's jobs by id stays its whole list by asking for what changed since its
// last answer (`seq`), and asks for the whole list again when the live workers' slots differ from those its
// reasons were worked out from (pending_basis, pending_reason.h): a worker came or went, and a pending job's
// reason may change without its row.
struct JobChanges {
  std::vector<JobRecord> jobs;         // in the sweep's order
  std::int64_t seq = 0;                // the next call's after_seq
  std::vector<int> live_worker_slots;  // what the reasons were worked out from, largest first
};

// How far one watcher has been sent its sweep: the store's change number of its last round
// (Store::jobs_changed_since), so that a round reads and sends only the jobs written since.
struct WatchMemory {
  std::int64_t seen = 0;  // 0: nothing sent yet, the first round sends every job
};

class Coordinator {
 public:
  Coordinator(Store& store, const ServerOptions& options) : store_(store), options_(options) {}

  // ---- sweeps
  Submitted submit_sweep(const std::string& yaml, const std::string& file_name, bool rerun);
  // Runs trained elsewhere as a sweep of finished jobs: each run checked again (check_imported_run: a caller
  // may send anything), then all stored at once. InvalidArgument naming the run and the field, nothing stored.
  absl::StatusOr<SweepRecord> import_runs(const std::string& name, const std::string& description,
                                          std::vector<ImportedRun> runs);
  absl::StatusOr<Page<SweepRecord>> list_sweeps(const PageRequest& page);
  absl::StatusOr<SweepRecord> sweep(const std::string& id_or_name);
  // Cancels the sweep's pending and active jobs, or only `job_ids` (each must be the sweep's); a sweep still
  // in its tune stage, cancelled whole, gets no main stage. Returns how many jobs were cancelled.
  absl::StatusOr<int> cancel_sweep(const std::string& sweep_id, const std::vector<std::string>& job_ids);

  // ---- jobs: each pending one with the reason it waits, when it is not only a free slot (pending_reason.h)
  // The sweep's jobs in their order; `states` empty: all. The pending reasons are worked out from
  // `live_worker_slots` when given (a whole list's, read once before its pages: whole_list_start), else from
  // the live workers now.
  absl::StatusOr<Page<JobRecord>> list_jobs(const std::string& sweep_id, const std::vector<JobState>& states,
                                            const PageRequest& page,
                                            const std::vector<int>* live_worker_slots = nullptr);
  absl::StatusOr<JobRecord> job(const std::string& id_or_path);
  // The runs table: the sweep's jobs with the ends of their loss curves, a page of rows at a time.
  absl::StatusOr<Page<Run>> list_runs(const std::string& sweep_id, const PageRequest& page);
  // The job after the request; FAILED_PRECONDITION (core/job_state.h's refusal) when its state allows none.
  absl::StatusOr<JobRecord> cancel_job(const std::string& job_id);
  absl::StatusOr<JobRecord> retry_job(const std::string& job_id);
  // The newest `limit` entries of the job's history.
  absl::StatusOr<Store::JobHistory> job_events(const std::string& job_id, std::size_t limit);
  // The end of the job's log (at most `max_bytes`) and its checkpoints (at most `max_files`), read from the
  // shared root without following a link (server/job_files.h).
  struct JobLog {
    std::string job_id;  // the job's id (the request may name it by its path)
    LogTail tail;
  };
  absl::StatusOr<JobLog> log_tail(const std::string& job_id, std::size_t max_bytes);
  struct JobCheckpoints {
    std::string job_id;
    CheckpointList list;
  };
  absl::StatusOr<JobCheckpoints> checkpoints(const std::string& job_id, std::size_t max_files);

  // ---- metrics
  // Every point of the jobs' series in `range` ordered by job (as listed), metric and step, a page of points
  // at a time; `names` empty: every metric.
  absl::StatusOr<Page<JobSeries>> metrics(const std::vector<std::string>& job_ids,
                                          const std::vector<std::string>& names, const StepRange& range,
                                          const PageRequest& page);
  // The series as a chart draws them, whole (not paged): downsampled to at most `buckets` buckets each
  // (core/metric_downsample.h, read from the store's tiles: bounded by the request's shape, not by the curves'
  // lengths), or with `buckets` 0 every point, at most `max_points` in all (INVALID_ARGUMENT beyond, naming
  // the limit and what to ask instead). Of every job of a sweep, or of one job.
  struct SeriesQuery {
    std::vector<std::string> names;
    StepRange range;
    std::size_t buckets = 0;
    std::size_t max_points = 0;
  };
  absl::StatusOr<std::vector<JobSeries>> sweep_series(const std::string& sweep_id, const SeriesQuery& query);
  absl::StatusOr<JobSeries> job_series(const std::string& job_id, const SeriesQuery& query);

  // ---- fits: a page of versions, newest first (latest_only: the newest version, no next page)
  absl::StatusOr<Page<FitRecord>> fits(const std::string& sweep_id, bool latest_only, const PageRequest& page);

  // ---- notes and tags (core/annotation.h) on a sweep (job_id empty) or one of its runs, and the search
  // across sweeps. INVALID_ARGUMENT naming the field, its limit and the value; NOT_FOUND for a sweep, or a job
  // not of that sweep.
  absl::StatusOr<Annotation> annotate(const std::string& sweep_id, const std::string& job_id,
                                      const AnnotationChange& change);
  absl::StatusOr<std::vector<Annotation>> annotations(const std::string& sweep_id);
  struct SearchAnswer {
    std::vector<SearchHit> hits;
    bool truncated = false;  // more matched than `limit`
  };
  // `limit` 0: annotation_limits::kSearchHits; more is refused.
  absl::StatusOr<SearchAnswer> search(const std::string& query, std::size_t limit);

  // ---- alerts (core/alert.h), newest first: of a sweep (an id or a name; empty: of every sweep), raised after
  // `after_id` (a poller's cursor). `limit` 0: kAlertsPerAnswer; more, or a negative cursor, is refused.
  static constexpr std::size_t kAlertsPerAnswer = 200;
  struct AlertsAnswer {
    std::vector<Alert> alerts;
    bool truncated = false;  // more matched than `limit`
  };
  absl::StatusOr<AlertsAnswer> alerts(const std::string& sweep_id, std::int64_t after_id, std::int64_t limit);

  // ---- the dashboard's saved views (core/saved_view.h): kept per user (`owner`, the caller's token id; 0
  // without auth), opened by anyone by id (a view's link), deleted by its owner only (PERMISSION_DENIED else).
  absl::StatusOr<SavedView> save_view(std::int64_t owner, const std::string& name, const std::string& sweep_id,
                                      const std::string& settings);
  std::vector<SavedView> views(std::int64_t owner);
  absl::StatusOr<SavedView> view(const std::string& id);
  absl::Status delete_view(std::int64_t owner, const std::string& id);

  // ---- workers
  absl::StatusOr<Page<WorkerRecord>> list_workers(const PageRequest& page);

  // ---- a sweep's jobs changed since a change number (0: every job), and the number and basis of a whole list
  absl::StatusOr<JobChanges> jobs_changed(const std::string& sweep_id, std::int64_t after_seq);
  // Read before a whole list of a sweep's jobs: what a reader asks jobs_changed for next, and the live workers'
  // slots its pages' pending reasons are worked out from (list_jobs).
  JobChanges whole_list_start();

  // ---- watching a sweep: what changed since the round `memory` remembers (the first round: everything).
  absl::StatusOr<SweepChanges> watch_round(const std::string& sweep_id, WatchMemory& memory);

 private:
  absl::StatusOr<SweepRecord> find_sweep(const std::string& id_or_name);
  absl::StatusOr<JobRecord> find_job(const std::string& id_or_path);
  // The job with that id when it is one of `sweep`'s; NOT_FOUND naming both else.
  absl::StatusOr<JobRecord> find_job_of_sweep(const SweepRecord& sweep, const std::string& job_id);
  void explain_pending(std::vector<JobRecord*> jobs);
  // One job's series for sweep_series and job_series; `left`: the points an answer without buckets may still
  // hold.
  absl::StatusOr<JobSeries> series(const std::string& job_id, const SeriesQuery& query, std::size_t& left);

  Store& store_;
  const ServerOptions& options_;
};

// The status a refusal is sent as through each door.
int http_status(const absl::Status& status);

}  // namespace gammalab::coordinator
