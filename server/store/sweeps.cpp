// Store: sweeps, and the jobs a submitted sweep creates (pending, or succeeded when a config's result is reused).
#include <nlohmann/json.hpp>

#include "core/job_stage.h"
#include "core/uid.h"
#include "server/random_hex.h"
#include "server/schema.h"
#include "server/store.h"
#include "server/store/metric_tiles.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::kSweepColumns;
using store_rows::parse_id;

SweepRecord Store::read_sweep(sql::StatementCache& statements, sql::Statement& s) {
  SweepRecord sw;
  sw.id = std::to_string(s.int64(0));
  sw.name = s.text(1);
  sw.priority = static_cast<int>(s.int64(2));
  sw.max_attempts = static_cast<int>(s.int64(3));
  sw.created_ms = s.int64(4);
  sw.source_yaml = s.text(5);
  sw.file_name = s.text(6);
  // Counted as the jobs change (schema migration 16), so that reading a sweep's row costs the same whatever
  // its size: a watch round reads it every time.
  sql::Statement& counts =
      statements.get("SELECT state, jobs FROM sweep_job_counts WHERE sweep_id = ? AND jobs > 0 ORDER BY state");
  counts.bind(1, s.int64(0));
  int total = 0;
  bool finished = true;
  while (counts.step()) {
    const JobState state = store_rows::read_state(counts, 0);
    const int n = static_cast<int>(counts.int64(1));
    sw.job_counts[std::string(job_state_name(state))] = n;
    total += n;
    if (!is_terminal(state)) finished = false;
  }
  const bool awaiting_main = s.int64(7) != 0;
  sw.total_jobs = total;
  sw.finished = finished && !awaiting_main;
  sw.awaiting_main_stage = awaiting_main;
  if (!s.is_null(8)) sw.tune_report_json = s.text(8);
  if (!s.is_null(9)) sw.stage_error = s.text(9);
  return sw;
}

void Store::insert_jobs(std::int64_t sweep_id, const Sweep& sweep, const std::string& stage, bool rerun,
                        SubmitResult& result) {
  const std::int64_t now = now_ms();
  sql::Statement& next_ordinal = statements_.get("SELECT COALESCE(MAX(ordinal) + 1, 0) FROM jobs WHERE sweep_id = ?");
  next_ordinal.bind(1, sweep_id);
  std::int64_t ordinal = next_ordinal.step() ? next_ordinal.int64(0) : 0;
  next_ordinal.reset();
  sql::Statement& find_done = statements_.get(
      "SELECT id, step, tokens, last_loss, total_steps FROM jobs "
      "WHERE config_hash = ? AND state = ? ORDER BY id LIMIT 1");
  sql::Statement& insert_job = statements_.get(
      "INSERT INTO jobs(sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
      "total_steps, created_ms, step, tokens, last_loss, finished_ms, reused_from, stage, slots_per_node, nodes, parent_id, "
      "branch_step, branch_points, waiting, uid) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  sql::Statement& copy_metrics = statements_.get(
      "INSERT INTO metrics(job_id, name_id, step, tokens, value) "
      "SELECT ?, name_id, step, tokens, value FROM metrics WHERE job_id = ?");
  sql::Statement& copy_loss_tails = statements_.get(
      "INSERT INTO loss_tails(job_id, name_id, step, tokens, value) "
      "SELECT ?, name_id, step, tokens, value FROM loss_tails WHERE job_id = ?");
  const std::string tile_columns(store_tiles::kTileExtremes);
  sql::Statement& copy_tiles = statements_.get("INSERT INTO metric_tiles(job_id, name_id, level, tile, " + tile_columns +
                                               ") SELECT ?, name_id, level, tile, " + tile_columns +
                                               " FROM metric_tiles WHERE job_id = ?");
  std::vector<std::int64_t> ids;  // of the jobs inserted so far, by their index in the stage: a branch's parent
  ids.reserve(sweep.jobs.size());
  std::vector<std::int64_t> parents;  // of branches inserted here: a reused run may have their checkpoints already
  for (const SweepJob& job : sweep.jobs) {
    // A branch's parent comes before it in the expansion (core/sweep/branches.h).
    const bool branch = job.parent && *job.parent < ids.size();
    if (branch) {
      insert_job.bind(19, ids[*job.parent]);
      if (parents.empty() || parents.back() != ids[*job.parent]) parents.push_back(ids[*job.parent]);
    } else {
      insert_job.bind_null(19);
    }
    insert_job.bind(20, branch ? job.branch_step : std::int64_t{0});
    // A branch waits for its run until released (below, for a reused run; later, by the run's reports).
    insert_job.bind(22, std::int64_t{branch ? 1 : 0});
    std::string points;
    for (const std::int64_t step : job.branch_points) points += (points.empty() ? "" : ",") + std::to_string(step);
    insert_job.bind(21, points);
    insert_job.bind(1, sweep_id).bind(2, ordinal++).bind(3, job.name).bind(4, job.config_hash);
    insert_job.bind(5, to_json(job.config).dump()).bind(7, sweep.max_attempts).bind(8, sweep.priority);
    insert_job.bind(23, random_hex(kUidBytes));  // never reused, unlike the row id (core/uid.h)
    insert_job.bind(9, job.config.steps).bind(10, now).bind(16, stage);
    // The slots it takes of each worker it runs on (the ranks its trainer starts there), and how many workers.
    insert_job.bind(17, std::int64_t{job.config.ranks_per_node()});
    insert_job.bind(18, std::int64_t{job.config.nodes.value_or(1)});
    std::int64_t reused = -1;
    if (!rerun && find_done.bind(1, job.config_hash).bind(2, job_state_name(JobState::kSucceeded)).step()) {
      check_transition(std::nullopt, JobState::kSucceeded);
      reused = find_done.int64(0);
      insert_job.bind(6, job_state_name(JobState::kSucceeded)).bind(11, find_done.int64(1));
      insert_job.bind(12, find_done.int64(2));
      if (auto loss = find_done.optional_real(3)) insert_job.bind(13, *loss);
      else insert_job.bind_null(13);
      insert_job.bind(14, now).bind(15, reused);
      find_done.reset();
    } else {
      check_transition(std::nullopt, JobState::kPending);
      insert_job.bind(6, job_state_name(JobState::kPending)).bind(11, std::int64_t{0}).bind(12, std::int64_t{0});
      insert_job.bind_null(13).bind_null(14).bind_null(15);
    }
    insert_job.run();
    const std::int64_t job_id = db_.last_insert_id();
    ids.push_back(job_id);
    if (reused >= 0) {
      copy_metrics.bind(1, job_id).bind(2, reused).run();
      copy_tiles.bind(1, job_id).bind(2, reused).run();
      copy_loss_tails.bind(1, job_id).bind(2, reused).run();
      record_event(job_id, job_event_kind::kReused, JobState::kSucceeded, 0, -1,
                   "the results of job " + std::to_string(reused) + " (same config)");
      ++result.jobs_reused;
    } else {
      record_event(job_id, job_event_kind::kSubmitted, JobState::kPending, 0, -1);
      ++result.jobs_created;
    }
  }
  for (const std::int64_t parent : parents) release_branches(parent);
}

SubmitResult Store::create_sweep(const Sweep& sweep, const std::string& yaml, const std::string& file_name,
                                 bool rerun, bool tune_stage) {
  absl::MutexLock lock(&mutex_);
  SubmitResult result;
  std::int64_t sweep_id = 0;
  {
    sql::Transaction tx(db_);
    sql::Statement& insert_sweep = statements_.get(
        "INSERT INTO sweeps(name, file_name, source_yaml, priority, max_attempts, created_ms, awaiting_main) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)");
    insert_sweep.bind(1, sweep.name).bind(2, file_name).bind(3, yaml).bind(4, sweep.priority);
    insert_sweep.bind(5, sweep.max_attempts).bind(6, now_ms()).bind(7, std::int64_t{tune_stage ? 1 : 0}).run();
    sweep_id = db_.last_insert_id();
    insert_jobs(sweep_id, sweep, tune_stage ? job_stage::kTune : job_stage::kMain, rerun, result);
    tx.commit();
  }
  sql::Statement& read = statements_.get(std::string("SELECT ") + kSweepColumns + " FROM sweeps s WHERE s.id = ?");
  read.bind(1, sweep_id);
  if (read.step()) result.sweep = read_sweep(statements_, read);
  read.reset();
  changed();
  return result;
}

std::vector<std::string> Store::sweeps_awaiting_main() {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  std::vector<std::string> out;
  sql::Statement& s = statements.get("SELECT id FROM sweeps WHERE awaiting_main = 1 ORDER BY id");
  while (s.step()) out.push_back(std::to_string(s.int64(0)));
  return out;
}

bool Store::add_main_stage(const std::string& sweep_id, const Sweep& main, const std::string& tune_report_json,
                           SubmitResult* result) {
  absl::MutexLock lock(&mutex_);
  SubmitResult counts;
  {
    sql::Transaction tx(db_);
    sql::Statement& claim = statements_.get(
        "UPDATE sweeps SET awaiting_main = 0, tune_report = ?, stage_error = NULL WHERE id = ? AND awaiting_main = 1");
    claim.bind(1, tune_report_json).bind(2, parse_id(sweep_id)).run();
    if (db_.changes() == 0) return false;  // the transaction rolls back: nothing was written
    insert_jobs(parse_id(sweep_id), main, job_stage::kMain, false, counts);
    tx.commit();
  }
  if (result) *result = counts;
  changed();
  return true;
}

int Store::add_tune_round(const std::string& sweep_id, const Sweep& round) {
  absl::MutexLock lock(&mutex_);
  SubmitResult counts;
  {
    sql::Transaction tx(db_);
    const std::int64_t id = parse_id(sweep_id);
    sql::Statement& awaiting = statements_.get("SELECT 1 FROM sweeps WHERE id = ? AND awaiting_main = 1");
    awaiting.bind(1, id);
    const bool open = awaiting.step();
    awaiting.reset();
    if (!open) return 0;
    sql::Statement& has = statements_.get("SELECT 1 FROM jobs WHERE sweep_id = ? AND stage = ? AND config_hash = ?");
    Sweep fresh = round;
    fresh.jobs.clear();
    for (const SweepJob& job : round.jobs) {
      has.bind(1, id).bind(2, job_stage::kTune).bind(3, job.config_hash);
      if (!has.step()) fresh.jobs.push_back(job);
      has.reset();
    }
    if (fresh.jobs.empty()) return 0;
    insert_jobs(id, fresh, job_stage::kTune, false, counts);
    tx.commit();
  }
  changed();
  return counts.jobs_created + counts.jobs_reused;
}

void Store::refuse_main_stage(const std::string& sweep_id, const std::string& tune_report_json,
                              const std::string& error) {
  absl::MutexLock lock(&mutex_);
  sql::Statement& s = statements_.get(
      "UPDATE sweeps SET awaiting_main = 0, tune_report = ?, stage_error = ? WHERE id = ? AND awaiting_main = 1");
  s.bind(1, tune_report_json).bind(2, error).bind(3, parse_id(sweep_id)).run();
  changed();
}

std::vector<SweepRecord> Store::list_sweeps() {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  std::vector<SweepRecord> out;
  // A list stays small whatever the files were: the source and the tune report are for find_sweep.
  sql::Statement& s =
      statements.get(std::string("SELECT ") + store_rows::kSweepSummaryColumns + " FROM sweeps s ORDER BY s.id");
  while (s.step()) out.push_back(read_sweep(statements, s));
  return out;
}

std::vector<SweepRecord> Store::list_sweeps_page(std::int64_t after_id, std::size_t limit, bool& more) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  std::vector<SweepRecord> out;
  sql::Statement& s = statements.get(std::string("SELECT ") + store_rows::kSweepSummaryColumns +
                                      " FROM sweeps s WHERE s.id > ? ORDER BY s.id LIMIT ?");
  s.bind(1, after_id).bind(2, static_cast<std::int64_t>(limit) + 1);  // one more: is there a next page?
  while (s.step()) out.push_back(read_sweep(statements, s));
  more = out.size() > limit;
  if (more) out.pop_back();
  return out;
}

std::optional<SweepRecord> Store::find_sweep(const std::string& id_or_name) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  sql::Statement& s = statements.get(std::string("SELECT ") + kSweepColumns +
                                      " FROM sweeps s WHERE s.id = ? OR s.name = ? ORDER BY (s.id = ?) DESC, s.id DESC "
                                      "LIMIT 1");
  const std::int64_t id = parse_id(id_or_name);
  s.bind(1, id).bind(2, id_or_name).bind(3, id);
  std::optional<SweepRecord> out;
  if (s.step()) out = read_sweep(statements, s);
  s.reset();
  return out;
}

}  // namespace gammalab
