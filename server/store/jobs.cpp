// Store: reading jobs, and the user's state changes of a job: cancel (pending -> cancelled; an active job is
// flagged for its worker to stop) and retry (failed or cancelled -> pending).
#include <algorithm>

#include "server/schema.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::job_columns;
using store_rows::parse_id;
using store_rows::read_job;
using store_rows::read_state;

std::optional<JobRecord> Store::read_job_by_id(sql::StatementCache& statements, std::int64_t id) {
  sql::Statement& s = statements.get("SELECT " + job_columns() + " FROM jobs j WHERE j.id = ?");
  s.bind(1, id);
  std::optional<JobRecord> out;
  if (s.step()) out = read_job(s);
  s.reset();
  return out;
}

std::vector<JobRecord> Store::list_jobs(const std::string& sweep_id, const std::vector<JobState>& states) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  std::vector<JobRecord> out;
  sql::Statement& s =
      statements.get("SELECT " + job_columns() + " FROM jobs j WHERE j.sweep_id = ? ORDER BY j.ordinal");
  s.bind(1, parse_id(sweep_id));
  while (s.step()) {
    JobRecord job = read_job(s);
    if (states.empty() || std::find(states.begin(), states.end(), job.state) != states.end()) {
      out.push_back(std::move(job));
    }
  }
  return out;
}

Store::JobPage Store::list_jobs_page(const std::string& sweep_id, const std::vector<JobState>& states,
                                    std::int64_t after_ordinal, std::size_t limit) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  JobPage page;
  sql::Statement& s = statements.get("SELECT " + job_columns() +
                                      ", j.ordinal FROM jobs j WHERE j.sweep_id = ? AND j.ordinal > ? ORDER BY j.ordinal");
  s.bind(1, parse_id(sweep_id)).bind(2, after_ordinal);
  const int ordinal_column = store_rows::kJobColumnCount;
  std::int64_t last = after_ordinal;
  while (s.step()) {
    JobRecord job = read_job(s);
    if (!states.empty() && std::find(states.begin(), states.end(), job.state) == states.end()) continue;
    if (page.jobs.size() == limit) {  // one more match: there is a next page, from after the last one kept
      page.next_ordinal = last;
      break;
    }
    last = s.int64(ordinal_column);
    page.ordinals.push_back(last);
    page.jobs.push_back(std::move(job));
  }
  s.reset();
  return page;
}

std::optional<JobRecord> Store::find_job(const std::string& id_or_path) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  if (std::int64_t id = parse_id(id_or_path); id >= 0) return read_job_by_id(statements, id);
  // SWEEP/JOB-NAME, where SWEEP is an id or a name (the newest sweep of that name).
  std::optional<JobRecord> out;
  const auto slash = id_or_path.find('/');
  if (slash == std::string::npos) return out;
  const std::string sweep = id_or_path.substr(0, slash), name = id_or_path.substr(slash + 1);
  sql::Statement& s = statements.get("SELECT " + job_columns() +
                                      " FROM jobs j JOIN sweeps s ON s.id = j.sweep_id "
                                      "WHERE (s.id = ? OR s.name = ?) AND j.name = ? ORDER BY s.id DESC LIMIT 1");
  s.bind(1, parse_id(sweep)).bind(2, sweep).bind(3, name);
  if (s.step()) out = read_job(s);
  s.reset();
  return out;
}

int Store::cancel(const std::string& sweep_id, const std::vector<std::string>& job_ids) {
  absl::MutexLock lock(&mutex_);
  const std::int64_t now = now_ms();
  int cancelled = 0;
  sql::Transaction tx(db_);
  sql::Statement& pending = statements_.get(
      "SELECT id FROM jobs WHERE sweep_id = ? AND state = ? AND (? = -1 OR id = ?) ORDER BY id");
  // Not a change of state: the worker stops the trainer and reports the job cancelled (finish). Each request is
  // recorded, a repeated one too (it is counted as before).
  sql::Statement& active = statements_.get(
      "UPDATE jobs SET cancel_requested = 1 "
      "WHERE sweep_id = ? AND state IN (" + sql_active_states() + ") AND (? = -1 OR id = ?) "
      "RETURNING id, state, attempt, worker_id");
  std::vector<std::int64_t> ids;
  for (const auto& id : job_ids) ids.push_back(parse_id(id));
  if (ids.empty()) ids.push_back(-1);
  struct Asked {
    std::int64_t id;
    JobState state;
    std::int64_t attempt, worker_id;
  };
  std::vector<std::int64_t> ended;  // pending jobs cancelled now
  std::vector<Asked> asked;         // active jobs asked to stop, recorded after their UPDATE has run to its end
  for (std::int64_t id : ids) {
    std::vector<std::int64_t> waiting;
    pending.bind(1, parse_id(sweep_id)).bind(2, job_state_name(JobState::kPending)).bind(3, id).bind(4, id);
    while (pending.step()) waiting.push_back(pending.int64(0));
    for (const std::int64_t job : waiting) {
      if (transition(job, JobState::kPending, JobState::kCancelled,
                     {{"finished_ms = ?", now}, {"error = 'cancelled by user'"}},
                     {job_event_kind::kCancelled, "cancelled by user", std::nullopt, -1})) {
        ended.push_back(job);
      }
    }
    const std::size_t before = asked.size();
    active.bind(1, parse_id(sweep_id)).bind(2, id).bind(3, id);
    while (active.step()) {
      asked.push_back({active.int64(0), read_state(active, 1), active.int64(2),
                       active.is_null(3) ? -1 : active.int64(3)});
    }
    for (std::size_t i = before; i < asked.size(); ++i) {
      const Asked& a = asked[i];
      record_event(a.id, job_event_kind::kCancelRequested, a.state, a.attempt, a.worker_id, "cancelled by user");
    }
  }
  // A run cancelled before it ran: its branches (when not cancelled with it) have nothing to wait for.
  for (const std::int64_t job : ended) end_orphaned_branches(job, JobState::kCancelled);
  // The whole sweep cancelled during its tune stage: no further round and no main stage comes after it.
  if (job_ids.empty()) {
    sql::Statement& end_wait = statements_.get(
        "UPDATE sweeps SET awaiting_main = 0, stage_error = 'the sweep was cancelled during its tune stage: no main "
        "stage' WHERE id = ? AND awaiting_main = 1");
    end_wait.bind(1, parse_id(sweep_id)).run();
  }
  cancelled = static_cast<int>(ended.size() + asked.size());
  tx.commit();
  changed();
  return cancelled;
}

std::optional<JobRecord> Store::retry(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  const std::int64_t id = parse_id(job_id);
  sql::Transaction tx(db_);
  const auto job = read_job_by_id(statements_, id);
  if (!job) return std::nullopt;
  // A job that has ended and may go back to the queue: failed or cancelled, never succeeded.
  const JobState from = job->state;
  if (!is_terminal(from) || !transition_allowed(from, JobState::kPending)) return std::nullopt;
  transition(id, from, JobState::kPending,
             {{"attempt = 0"}, {"error = ''"}, {"cancel_requested = 0"}, {"worker_faults = 0"}, {"hand_backs = 0"},
              {"not_before_ms = 0"}, {"worker_id = NULL"}, {"lease_expires_ms = NULL"}, {"finished_ms = NULL"}},
             {job_event_kind::kRetried,
              "by user, after it was " + std::string(job_state_name(from)) + " on attempt " +
                  std::to_string(job->attempt),
              0, -1});
  // A retry starts the job's bounds afresh: the user fixed what its workers lacked, or wants another go.
  sql::Statement& faults = statements_.get("DELETE FROM job_worker_faults WHERE job_id = ?");
  faults.bind(1, id).run();
  restore_orphaned_branches(id);
  auto retried = read_job_by_id(statements_, id);
  tx.commit();
  changed();
  return retried;
}

}  // namespace gammalab
