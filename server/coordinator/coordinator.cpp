// The coordinator's operations (server/coordinator/coordinator.h).
#include "server/coordinator/coordinator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "core/config_paths.h"
#include "core/job_command.h"
#include "core/job_state.h"
#include "core/sweep/sweep.h"
#include "core/utf8_text.h"
#include "proto/convert.h"
#include "server/pending_reason.h"

namespace gammalab::coordinator {

namespace {

// Entries of a reply as encoded: the entry and its tag and length.
template <typename Row>
std::size_t reply_bytes(const Row& row) {
  return encoded_size(row) + 8;
}

// Moves `rows` into the page while it stays within limits::kMaxReplyBytes (the first row always goes in).
// True when rows were left over for the next page.
template <typename Row>
bool add_within_reply_budget(std::vector<Row> rows, std::vector<Row>& out) {
  std::size_t bytes = 0;
  for (Row& row : rows) {
    const std::size_t size = reply_bytes(row);
    if (!out.empty() && bytes + size > limits::kMaxReplyBytes) return true;
    bytes += size;
    out.push_back(std::move(row));
  }
  return false;
}

// Where a page of rows starts and how many it may hold: the request's size within kRowPages, and after the row
// (an id or an ordinal) its token names, -1 for the first page.
struct RowPageStart {
  std::size_t size = 0;
  std::int64_t after = -1;
};
absl::StatusOr<RowPageStart> row_page_start(const PageRequest& request) {
  const absl::StatusOr<std::size_t> size = page_size(request.size, kRowPages);
  if (!size.ok()) return size.status();
  const absl::StatusOr<std::optional<PageCursor>> at = page_cursor(request.token, {.numbers = 1});
  if (!at.ok()) return at.status();
  return RowPageStart{*size, *at ? (*at)->numbers[0] : -1};
}

// A page of rows listed by id (sweeps, workers): the token is the last id of the page before.
template <typename Row, typename Read>
absl::StatusOr<Page<Row>> page_by_id(const PageRequest& request, Read read) {
  const absl::StatusOr<RowPageStart> start = row_page_start(request);
  if (!start.ok()) return start.status();
  bool more = false;
  Page<Row> page;
  std::vector<Row> rows = read(start->after, start->size, more);
  more = add_within_reply_budget(std::move(rows), page.items) || more;
  if (more) page.next_token = page.items.back().id;
  return page;
}

// A page of rows listed by ordinal (a sweep's jobs and runs) from what the store read: it also ends before the
// reply passes its byte budget (at least one row, however large); the token is the ordinal of its last row.
template <typename Row, typename Bytes>
Page<Row> page_by_ordinal(std::vector<Row> rows, const std::vector<std::int64_t>& ordinals,
                          std::int64_t next_ordinal, Bytes bytes_of) {
  Page<Row> page;
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    bytes += bytes_of(rows[i]);
    if (i > 0 && bytes > limits::kMaxReplyBytes) {
      next_ordinal = ordinals[i - 1];
      break;
    }
    page.items.push_back(std::move(rows[i]));
  }
  if (next_ordinal >= 0) page.next_token = std::to_string(next_ordinal);
  return page;
}

}  // namespace

int http_status(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kFailedPrecondition:
      return 409;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    default:
      return 500;
  }
}

absl::StatusOr<SweepRecord> Coordinator::find_sweep(const std::string& id_or_name) {
  std::optional<SweepRecord> sweep = store_.find_sweep(id_or_name);
  if (!sweep) return absl::NotFoundError("sweep '" + id_or_name + "' not found");
  return std::move(*sweep);
}

absl::StatusOr<JobRecord> Coordinator::find_job(const std::string& id_or_path) {
  std::optional<JobRecord> job = store_.find_job(id_or_path);
  if (!job) return absl::NotFoundError("job '" + id_or_path + "' not found");
  return std::move(*job);
}

void Coordinator::explain_pending(std::vector<JobRecord*> jobs) {
  gammalab::explain_pending(store_, options_.lease_timeout_ms, std::move(jobs));
}

Submitted Coordinator::submit_sweep(const std::string& yaml, const std::string& file_name, bool rerun) {
  Submitted out;
  SweepStages stages;
  try {
    SweepOptions options;
    options.preset_dir = model_preset_dir();
    stages = expand_stages(yaml, file_name.empty() ? "sweep.yaml" : file_name, options);
  } catch (const SweepError& e) {
    out.problems = e.diagnostics();
    return out;
  }
  // A sweep with a tune stage starts with it; the main stage is added when it ends (server/tune_stage.h).
  const bool tune = stages.tune.has_value();
  const Sweep& first = tune ? *stages.tune : stages.main;
  SubmitResult result = store_.create_sweep(first, yaml, file_name, rerun, tune);
  spdlog::info("sweep {} '{}': {} {}jobs ({} reused)", result.sweep.id, first.name,
               result.jobs_created + result.jobs_reused, tune ? "tune " : "", result.jobs_reused);
  out.sweep = std::move(result.sweep);
  out.jobs_created = result.jobs_created;
  out.jobs_reused = result.jobs_reused;
  return out;
}

absl::StatusOr<SweepRecord> Coordinator::import_runs(const std::string& name, const std::string& description,
                                                     std::vector<ImportedRun> runs) {
  if (name.empty() || name.size() > kMaxImportedNameBytes || utf8_valid(name) != name) {
    return absl::InvalidArgumentError("sweep_name: must be 1 to " + std::to_string(kMaxImportedNameBytes) +
                                      " bytes of UTF-8, got " + std::to_string(name.size()) + " bytes");
  }
  if (description.size() > kMaxImportedSourceBytes || utf8_valid(description) != description) {
    return absl::InvalidArgumentError("description: must be at most " + std::to_string(kMaxImportedSourceBytes) +
                                      " bytes of UTF-8, got " + std::to_string(description.size()));
  }
  if (runs.empty()) return absl::InvalidArgumentError("runs: none sent");
  try {
    check_imported_runs(runs);
  } catch (const std::invalid_argument& e) {
    return absl::InvalidArgumentError(e.what());
  }
  SweepRecord sweep = store_.import_runs(name, description, runs);
  spdlog::info("sweep {} '{}': {} runs imported ({})", sweep.id, name, runs.size(), description);
  return sweep;
}

absl::StatusOr<Page<SweepRecord>> Coordinator::list_sweeps(const PageRequest& page) {
  return page_by_id<SweepRecord>(page, [this](std::int64_t after, std::size_t size, bool& more) {
    return store_.list_sweeps_page(after, size, more);
  });
}

absl::StatusOr<SweepRecord> Coordinator::sweep(const std::string& id_or_name) { return find_sweep(id_or_name); }

absl::StatusOr<JobRecord> Coordinator::find_job_of_sweep(const SweepRecord& sweep, const std::string& job_id) {
  std::optional<JobRecord> job = store_.find_job(job_id);
  if (!job || job->sweep_id != sweep.id) {
    return absl::NotFoundError("job '" + job_id + "' in sweep " + sweep.id + " not found");
  }
  return std::move(*job);
}

absl::StatusOr<int> Coordinator::cancel_sweep(const std::string& sweep_id, const std::vector<std::string>& job_ids) {
  const absl::StatusOr<SweepRecord> sweep = find_sweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  std::vector<std::string> ids;
  for (const std::string& id : job_ids) {
    const absl::StatusOr<JobRecord> job = find_job_of_sweep(*sweep, id);
    if (!job.ok()) return job.status();
    ids.push_back(job->id);
  }
  const int cancelled = store_.cancel(sweep->id, ids);
  if (ids.empty() && sweep->awaiting_main_stage) {
    store_.refuse_main_stage(sweep->id, "", "cancelled before its tune stage ended");
  }
  return cancelled;
}

absl::StatusOr<Page<JobRecord>> Coordinator::list_jobs(const std::string& sweep_id,
                                                       const std::vector<JobState>& states,
                                                       const PageRequest& request,
                                                       const std::vector<int>* live_worker_slots) {
  const absl::StatusOr<RowPageStart> start = row_page_start(request);
  if (!start.ok()) return start.status();
  const absl::StatusOr<SweepRecord> sweep = find_sweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  Store::JobPage stored = store_.list_jobs_page(sweep->id, states, start->after, start->size);
  std::vector<JobRecord*> listed;
  for (JobRecord& job : stored.jobs) listed.push_back(&job);
  if (live_worker_slots)
    gammalab::explain_pending(*live_worker_slots, std::move(listed));
  else
    explain_pending(std::move(listed));
  return page_by_ordinal(std::move(stored.jobs), stored.ordinals, stored.next_ordinal,
                         [](const JobRecord& job) { return reply_bytes(job); });
}

absl::StatusOr<JobRecord> Coordinator::job(const std::string& id_or_path) {
  absl::StatusOr<JobRecord> job = find_job(id_or_path);
  if (job.ok()) explain_pending({&*job});
  return job;
}

absl::StatusOr<Page<Run>> Coordinator::list_runs(const std::string& sweep_id, const PageRequest& request) {
  const absl::StatusOr<RowPageStart> start = row_page_start(request);
  if (!start.ok()) return start.status();
  const absl::StatusOr<SweepRecord> sweep = find_sweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  // The jobs and the ends of their loss curves in one read (the store keeps the tails at ingest).
  Store::RunPage stored = store_.runs_page(sweep->id, start->after, start->size);
  std::vector<JobRecord*> listed;
  for (Run& run : stored.runs) listed.push_back(&run.job);
  explain_pending(listed);
  return page_by_ordinal(std::move(stored.runs), stored.ordinals, stored.next_ordinal, [](const Run& run) {
    return reply_bytes(run.job) + 16 * (run.losses.train_loss.size() + run.losses.val_loss.size());
  });
}

absl::StatusOr<JobRecord> Coordinator::cancel_job(const std::string& job_id) {
  const absl::StatusOr<JobRecord> job = find_job(job_id);
  if (!job.ok()) return job.status();
  if (store_.cancel(job->sweep_id, {job->id}) == 0) {
    const absl::StatusOr<JobRecord> now = find_job(job->id);
    if (!now.ok()) return now.status();
    return absl::FailedPreconditionError(cancel_refusal(now->id, now->state));
  }
  return this->job(job->id);
}

absl::StatusOr<JobRecord> Coordinator::retry_job(const std::string& job_id) {
  const absl::StatusOr<JobRecord> job = find_job(job_id);
  if (!job.ok()) return job.status();
  std::optional<JobRecord> retried = store_.retry(job->id);
  if (!retried) {
    const absl::StatusOr<JobRecord> now = find_job(job->id);
    if (!now.ok()) return now.status();
    return absl::FailedPreconditionError(retry_refusal(now->id, now->state));
  }
  return std::move(*retried);
}

absl::StatusOr<Store::JobHistory> Coordinator::job_events(const std::string& job_id, std::size_t limit) {
  const absl::StatusOr<JobRecord> job = find_job(job_id);
  if (!job.ok()) return job.status();
  return store_.job_events(job->id, limit);
}

absl::StatusOr<Coordinator::JobLog> Coordinator::log_tail(const std::string& job_id, std::size_t max_bytes) {
  const absl::StatusOr<JobRecord> job = find_job(job_id);
  if (!job.ok()) return job.status();
  return JobLog{job->id, read_log_tail(options_.shared_root, job->id, max_bytes)};
}

absl::StatusOr<Coordinator::JobCheckpoints> Coordinator::checkpoints(const std::string& job_id,
                                                                     std::size_t max_files) {
  const absl::StatusOr<JobRecord> job = find_job(job_id);
  if (!job.ok()) return job.status();
  return JobCheckpoints{job->id, list_checkpoints(options_.shared_root, job->id, max_files)};
}

absl::StatusOr<Page<JobSeries>> Coordinator::metrics(const std::vector<std::string>& job_ids,
                                                     const std::vector<std::string>& names, const StepRange& range,
                                                     const PageRequest& request) {
  const absl::StatusOr<std::size_t> size = page_size(request.size, kPointPages);
  if (!size.ok()) return size.status();
  // "JOB:STEP:NAME": the index of a job in job_ids, and within it where the page before ended (step -1 and
  // no name: from its first point).
  const absl::StatusOr<std::optional<PageCursor>> at =
      page_cursor(request.token, {.numbers = 2, .min_number = -1, .text = true});
  if (!at.ok()) return at.status();
  std::size_t first = 0;
  std::optional<Store::MetricsResume> resume;
  if (*at) {
    const PageCursor& cursor = **at;
    if (cursor.numbers[0] < 0 || cursor.numbers[0] >= static_cast<std::int64_t>(job_ids.size())) {
      return foreign_token(request.token);
    }
    first = static_cast<std::size_t>(cursor.numbers[0]);
    if (cursor.numbers[1] >= 0 || !cursor.text->empty()) resume = Store::MetricsResume{*cursor.text, cursor.numbers[1]};
  }
  auto token = [](std::size_t job, const std::optional<Store::MetricsResume>& from) {
    PageCursor cursor{{static_cast<std::int64_t>(job), from ? from->step : -1}, from ? from->name : ""};
    return cursor.token();
  };
  // The page ends at `room` points or before its encoded size passes kMaxReplyBytes (at least one point),
  // whichever comes first; the token says where it ended.
  Page<JobSeries> page;
  std::size_t room = *size, bytes = 0, points = 0;
  for (std::size_t i = first; i < job_ids.size(); ++i) {
    const absl::StatusOr<JobRecord> job = find_job(job_ids[i]);
    if (!job.ok()) return job.status();
    const std::optional<Store::MetricsResume> from = i == first ? resume : std::nullopt;
    Store::MetricsPage stored = store_.metrics_page(job->id, names, range.after_step, range.to_step, from, room);
    JobSeries& out = page.items.emplace_back(JobSeries{job->id, {}});
    std::size_t kept = 0;
    for (; kept < stored.points.size(); ++kept) {
      const std::size_t point_bytes = reply_bytes(stored.points[kept]);
      if (points > 0 && bytes + point_bytes > limits::kMaxReplyBytes) break;
      bytes += point_bytes;
      ++points;
      out.points.push_back(std::move(stored.points[kept]));
    }
    if (kept < stored.points.size()) {  // out of bytes inside this job
      page.next_token = token(i, kept > 0 ? std::optional(Store::MetricsResume{out.points.back().name,
                                                                               out.points.back().step})
                                          : from);
      if (kept == 0) page.items.pop_back();
      break;
    }
    if (stored.next) {  // out of points inside this job
      page.next_token = token(i, stored.next);
      break;
    }
    room -= kept;
    if (room == 0 && i + 1 < job_ids.size()) {
      page.next_token = token(i + 1, std::nullopt);
      break;
    }
  }
  return page;
}

absl::StatusOr<JobSeries> Coordinator::series(const std::string& job_id, const SeriesQuery& q, std::size_t& left) {
  const StepRange& r = q.range;
  if (q.buckets != 0) {
    return JobSeries{job_id, store_.downsampled_metrics(job_id, q.names, r.after_step, r.to_step, q.buckets)};
  }
  Store::MetricsPage page =
      store_.metrics_page(job_id, q.names, r.after_step, r.to_step, std::nullopt, std::max<std::size_t>(left, 1));
  if (page.next || page.points.size() > left) {
    return absl::InvalidArgumentError("the answer would hold more than " + std::to_string(q.max_points) +
                                      " points, the limit without max_points: ask with max_points, or for fewer "
                                      "steps (after_step, from_step and to_step) or metrics (names)");
  }
  left -= page.points.size();
  return JobSeries{job_id, std::move(page.points)};
}

absl::StatusOr<std::vector<JobSeries>> Coordinator::sweep_series(const std::string& sweep_id,
                                                                 const SeriesQuery& query) {
  const absl::StatusOr<SweepRecord> sweep = find_sweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  std::vector<JobSeries> out;
  std::size_t left = query.max_points;
  for (const JobRecord& job : store_.list_jobs(sweep->id)) {
    absl::StatusOr<JobSeries> one = series(job.id, query, left);
    if (!one.ok()) return one.status();
    out.push_back(std::move(*one));
  }
  return out;
}

absl::StatusOr<JobSeries> Coordinator::job_series(const std::string& job_id, const SeriesQuery& query) {
  const absl::StatusOr<JobRecord> job = find_job(job_id);
  if (!job.ok()) return job.status();
  std::size_t left = query.max_points;
  return series(job->id, query, left);
}

absl::StatusOr<Page<FitRecord>> Coordinator::fits(const std::string& sweep_id, bool latest_only,
                                                const PageRequest& request) {
  const absl::StatusOr<std::size_t> size = page_size(request.size, kVersionPages);
  if (!size.ok()) return size.status();
  // The token is the last version of the page before: the next page starts below it.
  const absl::StatusOr<std::optional<PageCursor>> at = page_cursor(request.token, {.numbers = 1, .min_number = 1});
  if (!at.ok()) return at.status();
  if (*at && (*at)->numbers[0] > std::numeric_limits<int>::max()) return foreign_token(request.token);
  const absl::StatusOr<SweepRecord> sweep = find_sweep(sweep_id);
  if (!sweep.ok()) return sweep.status();
  const std::optional<int> below = *at ? std::optional(static_cast<int>((*at)->numbers[0])) : std::nullopt;
  Store::FitPage stored = store_.fits_page(sweep->id, below, latest_only ? 1 : *size);
  // Whole versions up to the byte budget (at least one): the next page starts below the last one kept.
  Page<FitRecord> page;
  std::size_t bytes = 0;
  int kept = 0;  // the version of the last fit kept
  for (FitRecord& fit : stored.fits) {
    bytes += reply_bytes(fit);
    if (bytes > limits::kMaxReplyBytes && kept != 0 && fit.version != kept) {  // a version after the first
      stored.next_below = kept;
      break;
    }
    kept = fit.version;
    page.items.push_back(std::move(fit));
  }
  if (!latest_only && stored.next_below > 0) page.next_token = std::to_string(stored.next_below);
  return page;
}

absl::StatusOr<Page<WorkerRecord>> Coordinator::list_workers(const PageRequest& page) {
  return page_by_id<WorkerRecord>(page, [this](std::int64_t after, std::size_t size, bool& more) {
    return store_.list_workers_page(options_.lease_timeout_ms, after, size, more);
  });
}

absl::StatusOr<JobChanges> Coordinator::jobs_changed(const std::string& sweep_id, std::int64_t after_seq) {
  if (after_seq < 0) return absl::InvalidArgumentError("changed_after: must be 0 or more, got " + std::to_string(after_seq));
  const std::vector<int> live = store_.live_worker_slots(options_.lease_timeout_ms);
  Store::JobChanges read = store_.jobs_changed_since(sweep_id, after_seq);  // by id or name
  if (!read.sweep) return absl::NotFoundError("sweep '" + sweep_id + "' not found");
  JobChanges out{std::move(read.jobs), read.seq, live};
  std::vector<JobRecord*> listed;
  for (JobRecord& job : out.jobs) listed.push_back(&job);
  gammalab::explain_pending(live, std::move(listed));
  return out;
}

JobChanges Coordinator::whole_list_start() {
  JobChanges start;
  start.live_worker_slots = store_.live_worker_slots(options_.lease_timeout_ms);
  start.seq = store_.job_change_seq();
  return start;
}

absl::StatusOr<SweepChanges> Coordinator::watch_round(const std::string& sweep_id, WatchMemory& memory) {
  Store::JobChanges read = store_.jobs_changed_since(sweep_id, memory.seen);
  if (!read.sweep) return absl::NotFoundError("sweep '" + sweep_id + "' not found");
  memory.seen = read.seq;
  SweepChanges changes;
  changes.sweep = std::move(*read.sweep);  // a summary: without its file and tune report
  changes.jobs = std::move(read.jobs);
  for (JobRecord& job : changes.jobs) job.config_json.clear();  // GetJob has it; an update needs the state only
  return changes;
}

}  // namespace gammalab::coordinator
