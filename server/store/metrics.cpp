// Store: metric points (idempotent per job, name and step) and the progress of a job they carry; a report for
// an unknown job, or with a step past the job or going back, is refused whole. Ingest never
// changes a job's state: the trainer's start does (leases.cpp). Reports that arrive together are written in one
// transaction (store/group_commit.h), each in a savepoint of its own.
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/limits.h"
#include "core/metric_names.h"
#include "core/utf8_text.h"
#include "server/schema.h"
#include "server/store.h"
#include "server/store/metric_tiles.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;

std::int64_t Store::metric_name_id(const std::string& name) {
  if (auto it = name_ids_.find(name); it != name_ids_.end()) return it->second;
  sql::Statement& upsert = statements_.get(
      "INSERT INTO metric_names(name) VALUES (?) ON CONFLICT(name) DO UPDATE SET name = name "
      "RETURNING id");
  upsert.bind(1, name);
  if (!upsert.step()) throw sql::Error("metric name id for " + name);
  const std::int64_t id = upsert.int64(0);
  upsert.reset();
  // Written in the ingest transaction: the cache forgets the id again if that rolls back (write_ingest_group).
  name_ids_[name] = id;
  uncommitted_names_.push_back(name);
  return id;
}

// A report waiting in (or written by) the ingest group commit: what add_metrics was asked, and how it went.
struct Store::IngestReport {
  const std::string& job_id;
  int attempt;
  const std::vector<MetricPoint>& points;
  const IngestFence* fence;
  IngestResult result;
  std::exception_ptr failure;  // its write threw: rolled back to its savepoint, rethrown to its caller
};

IngestResult Store::add_metrics(const std::string& job_id, int attempt, const std::vector<MetricPoint>& points,
                                const IngestFence* fence) {
  IngestReport report{job_id, attempt, points, fence, {}, {}};
  ingest_groups_.run(report, std::max<std::size_t>(1, points.size()),
                     [this](std::span<IngestReport* const> group) { write_ingest_group(group); });
  if (report.failure) std::rethrow_exception(report.failure);
  return std::move(report.result);
}

void Store::write_ingest_group(std::span<IngestReport* const> group) {
  absl::MutexLock lock(&mutex_);
  // Savepoints by prepared statements: a report's own costs no parse of SQL text.
  sql::Statement& savepoint = statements_.get("SAVEPOINT report");
  sql::Statement& release = statements_.get("RELEASE report");
  sql::Statement& rollback_to = statements_.get("ROLLBACK TO report");
  try {
    sql::Transaction tx(db_);
    bool wrote = false;
    for (IngestReport* report : group) {
      const std::size_t names_before = uncommitted_names_.size();
      savepoint.run();
      try {
        report->result = ingest_report(report->job_id, report->attempt, report->points, report->fence);
      } catch (...) {
        report->failure = std::current_exception();
      }
      if (report->failure) {
        // Its writes undone, and the ids of names it added forgotten; the group goes on. (When SQLite has
        // rolled the whole transaction back, ROLLBACK TO throws: the group fails, below.)
        statements_.reset_all();  // none left part-way through its rows
        rollback_to.run();
        for (std::size_t i = names_before; i < uncommitted_names_.size(); ++i) name_ids_.erase(uncommitted_names_[i]);
        uncommitted_names_.resize(names_before);
      } else {
        wrote = wrote || (report->result.refusal == IngestResult::Refusal::kNone && !report->points.empty());
      }
      release.run();
    }
    tx.commit();
    uncommitted_names_.clear();
    if (wrote) changed();
  } catch (...) {
    for (const std::string& name : uncommitted_names_) name_ids_.erase(name);
    uncommitted_names_.clear();
    statements_.reset_all();  // none left part-way through its rows
    throw;
  }
}

IngestResult Store::ingest_report(const std::string& job_id, int attempt, const std::vector<MetricPoint>& points,
                                  const IngestFence* fence) {
  IngestResult result;
  result.received = static_cast<std::int64_t>(points.size());
  const std::int64_t id = parse_id(job_id);
  // Every check before anything is written: a refused report leaves the database as it was.
  std::int64_t total_steps = 0;
  std::map<std::string, std::int64_t> stored_heads;
  auto [why, reason] = ingest_refusal(id, attempt, points.size(), fence, total_steps);
  if (why == IngestResult::Refusal::kNone && !points.empty()) {
    std::tie(why, reason) = order_refusal(id, points, total_steps, stored_heads);
  }
  if (why != IngestResult::Refusal::kNone) {
    result.refusal = why;
    result.reason = "job " + utf8_head(job_id, 64) + " attempt " + std::to_string(attempt) + ": " + std::move(reason);
    return result;
  }
  if (points.empty()) return result;
  result.stored = write_points(id, attempt, points, stored_heads);
  return result;
}

std::pair<IngestResult::Refusal, std::string> Store::ingest_refusal(std::int64_t id, int attempt, std::size_t points,
                                                                   const IngestFence* fence, std::int64_t& total_steps) {
  sql::Statement& job = statements_.get(
      "SELECT j.total_steps, j.attempt = ? AND j.state IN (" + sql_active_states() + "), w.token_id FROM jobs j "
      "LEFT JOIN workers w ON w.id = j.worker_id WHERE j.id = ?");
  job.bind(1, attempt).bind(2, id);
  if (!job.step()) return {IngestResult::Refusal::kUnknownJob, "no such job"};
  total_steps = job.int64(0);
  const bool held = job.int64(1) != 0;
  const std::optional<std::int64_t> holder_token = job.is_null(2) ? std::nullopt : std::optional(job.int64(2));
  job.reset();
  if (!fence) return {};
  if (!held) return {IngestResult::Refusal::kNotHolder, "this attempt does not hold the job (a stale or unknown attempt)"};
  if (fence->token_id && holder_token != fence->token_id) {
    return {IngestResult::Refusal::kOtherToken, "the job is held by a worker of another token"};
  }
  if (fence->admit && !fence->admit(points)) {
    return {IngestResult::Refusal::kRateLimited,
            "over the limit of " + std::to_string(static_cast<int>(limits::kMetricPointsPerSecondPerJob)) +
                " metric points per second per job; resend later"};
  }
  return {};
}

std::pair<IngestResult::Refusal, std::string> Store::order_refusal(std::int64_t id, const std::vector<MetricPoint>& points,
                                                                  std::int64_t total_steps,
                                                                  std::map<std::string, std::int64_t>& stored_heads) {
  // A metric's head (its highest stored step of the job) comes from the table, whose key (job, name, step) finds
  // it in one seek: it is right after a restart and costs no memory. Stored points of a job are a prefix of its
  // curve (reports are stored whole and in order; a resumed attempt sends what the last one did not store,
  // core/metric_replay.h), so a step below the head is a resend or a step back.
  sql::Statement& head_of = statements_.get(
      "SELECT MAX(m.step) FROM metrics m JOIN metric_names n ON n.id = m.name_id WHERE m.job_id = ? AND n.name = ?");
  sql::Statement& stored = statements_.get(
      "SELECT 1 FROM metrics m JOIN metric_names n ON n.id = m.name_id WHERE m.job_id = ? AND n.name = ? AND m.step = ?");
  auto what = [](const MetricPoint& p) { return "metric '" + p.name + "' at step " + std::to_string(p.step) + ": "; };
  std::map<std::string, std::int64_t> heads;  // per metric: the highest step, this report's points included
  std::optional<std::vector<std::string>> declared;  // the job's branch points, read at its first branch_point point
  std::optional<std::size_t> user_metrics;  // the job's metrics of its own, stored and new in this report
  for (const MetricPoint& p : points) {
    if (p.name == metric_names::kBranchPoint) {
      if (!declared) {
        sql::Statement& of = statements_.get("SELECT branch_points FROM jobs WHERE id = ?");
        const std::string text = of.bind(1, id).step() ? of.text(0) : std::string();
        of.reset();
        declared = absl::StrSplit(text, ',', absl::SkipEmpty());
      }
      const bool listed = std::find(declared->begin(), declared->end(), std::to_string(p.step)) != declared->end();
      if (!listed || p.value != static_cast<double>(p.step)) {
        return {IngestResult::Refusal::kBadBranchPoint,
                what(p) + "a branch point is announced only at a step the job declares (" +
                    (declared->empty() ? std::string("it declares none") : absl::StrJoin(*declared, ", ")) +
                    "), with the step as its value"};
      }
    }
    if (p.step > total_steps) {
      return {IngestResult::Refusal::kStepBeyondJob,
              what(p) + "step " + std::to_string(p.step) + " is beyond the job's " + std::to_string(total_steps) + " steps"};
    }
    auto [head, first] = heads.try_emplace(p.name, -1);
    if (first) {
      head_of.bind(1, id).bind(2, p.name);
      if (head_of.step() && !head_of.is_null(0)) head->second = stored_heads[p.name] = head_of.int64(0);
      head_of.reset();
      // A metric of the job's own that it has not stored yet: within the limit per job, counting this report's.
      if (head->second < 0 && metric_names::is_user_metric(p.name)) {
        if (!user_metrics) user_metrics = stored_user_metrics(id);
        if (++*user_metrics > metric_names::kMaxUserMetricsPerJob) {
          return {IngestResult::Refusal::kTooManyMetrics,
                  what(p) + "more than " + std::to_string(metric_names::kMaxUserMetricsPerJob) +
                      " metrics of the job's own (" + std::string(metric_names::kUserPrefix) + "NAME), the limit per job"};
        }
      }
    }
    if (p.step < head->second) {
      stored.bind(1, id).bind(2, p.name).bind(3, p.step);
      const bool resend = stored.step();
      stored.reset();
      if (!resend) {
        return {IngestResult::Refusal::kStepBackwards,
                what(p) + "step " + std::to_string(p.step) + " comes after step " + std::to_string(head->second) +
                    " of the same metric (steps never go back)"};
      }
    }
    head->second = std::max(head->second, p.step);
  }
  return {};
}

std::size_t Store::stored_user_metrics(std::int64_t id) {
  sql::Statement& count = statements_.get(
      "WITH RECURSIVE ids(id) AS ("
      "  SELECT (SELECT MIN(name_id) FROM metrics WHERE job_id = ?1)"
      "  UNION ALL"
      "  SELECT (SELECT MIN(name_id) FROM metrics WHERE job_id = ?1 AND name_id > ids.id)"
      "  FROM ids WHERE ids.id IS NOT NULL) "
      // (metric_names::kUserPrefix, and the first text after every name that starts with it)
      "SELECT COUNT(*) FROM ids JOIN metric_names n ON n.id = ids.id WHERE n.name >= 'user/' AND n.name < 'user0'");
  count.bind(1, id);
  const std::size_t n = count.step() ? static_cast<std::size_t>(count.int64(0)) : 0;
  count.reset();
  return n;
}

std::int64_t Store::write_points(std::int64_t id, int attempt, const std::vector<MetricPoint>& points,
                                const std::map<std::string, std::int64_t>& stored_heads) {
  // In the caller's transaction and savepoint (write_ingest_group).
  std::vector<std::int64_t> name_ids;
  name_ids.reserve(points.size());
  for (const MetricPoint& p : points) name_ids.push_back(metric_name_id(p.name));
  std::map<std::int64_t, std::int64_t> heads_by_id;  // stored_heads by name id, for the tiles
  for (const auto& [name, head] : stored_heads) heads_by_id.emplace(metric_name_id(name), head);
  std::int64_t stored = 0;
  sql::Statement& insert = statements_.get(
      "INSERT INTO metrics(job_id, name_id, step, tokens, value) VALUES (?, ?, ?, ?, ?) "
      "ON CONFLICT DO NOTHING");
  store_tiles::TileDelta tiles;  // of the points stored now (a resend is not merged twice)
  const MetricPoint* last_loss = nullptr;
  const MetricPoint* last_speed = nullptr;
  bool branch_point = false;  // a checkpoint that a cooldown branch starts from is written
  std::vector<std::pair<std::int64_t, const MetricPoint*>> losses;  // loss points stored now, for loss_tails
  std::int64_t max_step = 0, max_tokens = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const MetricPoint& p = points[i];
    insert.bind(1, id).bind(2, name_ids[i]).bind(3, p.step).bind(4, p.tokens);
    if (std::isnan(p.value))
      insert.bind_null(5);
    else
      insert.bind(5, p.value);
    insert.run();
    if (db_.changes() == 1) {
      ++stored;
      tiles.add(name_ids[i], p.step, p.tokens, p.value);
      branch_point = branch_point || p.name == metric_names::kBranchPoint;
      if (p.name == metric_names::kTrainLoss || p.name == metric_names::kValLoss) losses.emplace_back(name_ids[i], &p);
    }
    if (p.step >= max_step) {
      max_step = p.step;
      max_tokens = std::max(max_tokens, p.tokens);
    }
    if (p.name == metric_names::kTrainLoss && (!last_loss || p.step >= last_loss->step)) last_loss = &p;
    if (p.name == metric_names::kTokensPerSecond && (!last_speed || p.step >= last_speed->step)) last_speed = &p;
  }
  // Progress is taken only from the attempt that holds the job, and never moves backwards.
  sql::Statement& progress = statements_.get(
      "UPDATE jobs SET step = MAX(step, ?), tokens = MAX(tokens, ?), "
      "last_loss = CASE WHEN ? >= step THEN COALESCE(?, last_loss) ELSE last_loss END, "
      "tokens_per_s = COALESCE(?, tokens_per_s) "
      "WHERE id = ? AND attempt = ? AND state IN (" + sql_active_states() + ")");
  progress.bind(1, max_step).bind(2, max_tokens).bind(3, last_loss ? last_loss->step : -1);
  if (last_loss && std::isfinite(last_loss->value))
    progress.bind(4, last_loss->value);
  else
    progress.bind_null(4);
  if (last_speed)
    progress.bind(5, last_speed->value);
  else
    progress.bind_null(5);
  progress.bind(6, id).bind(7, attempt).run();
  tiles.write(id, statements_.get(store_tiles::read_tile_sql()), statements_.get(store_tiles::kWriteTile), &heads_by_id);
  if (!losses.empty()) keep_loss_tails(id, losses);
  if (branch_point) release_branches(id);
  return stored;
}

std::vector<std::pair<std::int64_t, std::string>> Store::metric_names_of(sql::StatementCache& statements,
                                                                         std::int64_t job_id,
                                                                         const std::vector<std::string>& names) {
  std::vector<std::pair<std::int64_t, std::string>> out;
  if (names.empty()) {
    // One seek per metric along the tiles' (job, name, level, tile) key, skipping each metric's rows: a
    // DISTINCT over the job's tiles reads all of them (14k rows for a run of 100k points, which made a sweep's
    // downsampled read of 100 such runs 4x slower than of 100 short ones; docs/perf.md).
    sql::Statement& next = statements.get(
        "SELECT name_id FROM metric_tiles WHERE job_id = ? AND name_id > ? ORDER BY name_id LIMIT 1");
    sql::Statement& name = statements.get("SELECT name FROM metric_names WHERE id = ?");
    for (std::int64_t after = std::numeric_limits<std::int64_t>::min();;) {
      next.bind(1, job_id).bind(2, after);
      if (!next.step()) break;
      after = next.int64(0);
      next.reset();
      name.bind(1, after);
      if (name.step()) out.emplace_back(after, name.text(0));
      name.reset();
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    return out;
  }
  sql::Statement& one = statements.get("SELECT id FROM metric_names WHERE name = ?");
  for (const std::string& name : names) {
    one.bind(1, name);
    if (one.step()) out.emplace_back(one.int64(0), name);
    one.reset();
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::optional<StoredMetrics> Store::stored_metrics(sql::StatementCache& statements, std::int64_t job_id) {
  // Each metric's last step by the (job, name, step) key: a row per metric, however long the run.
  sql::Statement& last = statements.get(
      "SELECT step FROM metrics WHERE job_id = ? AND name_id = ? ORDER BY step DESC LIMIT 1");
  std::optional<StoredMetrics> stored;
  for (const auto& [name_id, name] : metric_names_of(statements, job_id, {})) {
    last.bind(1, job_id).bind(2, name_id);
    if (last.step()) {
      const std::int64_t step = last.int64(0);
      if (!stored || step > stored->last_step) stored = StoredMetrics{step, {}};
      if (step == stored->last_step) stored->names_at_last_step.push_back(name);
    }
    last.reset();
  }
  return stored;
}

std::vector<MetricPoint> Store::metrics(const std::string& job_id, const std::vector<std::string>& names,
                                        std::int64_t after_step, std::int64_t to_step) {
  return metrics_page(job_id, names, after_step, to_step, std::nullopt, std::numeric_limits<std::size_t>::max())
      .points;
}

Store::MetricsPage Store::metrics_page(const std::string& job_id, const std::vector<std::string>& names,
                                       std::int64_t after_step, std::int64_t to_step,
                                       const std::optional<MetricsResume>& from, std::size_t limit) {
  if (limit < 1) throw std::invalid_argument("metrics_page: limit must be at least 1");
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  const std::int64_t job = parse_id(job_id);
  MetricsPage page;
  // One range of the (job, name, step) key per metric: no join, no sort. One point past the limit tells
  // whether another page follows.
  sql::Statement& s = statements.get(
      "SELECT step, tokens, value FROM metrics WHERE job_id = ? AND name_id = ? AND step > ? AND step <= ? "
      "ORDER BY step LIMIT ?");
  for (const auto& [name_id, name] : metric_names_of(statements, job, names)) {
    if (from && name < from->name) continue;  // metric_names_of orders by name, as pages do
    const std::int64_t after = from && name == from->name ? std::max(after_step, from->step) : after_step;
    const std::size_t room = limit - page.points.size();
    const std::int64_t ask = room >= static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())
                                 ? -1  // no LIMIT
                                 : static_cast<std::int64_t>(room) + 1;
    s.bind(1, job).bind(2, name_id).bind(3, after).bind(4, to_step).bind(5, ask);
    while (s.step()) {
      if (page.points.size() == limit) {
        const MetricPoint& last = page.points.back();
        page.next = MetricsResume{last.name, last.step};
        s.reset();
        return page;
      }
      page.points.push_back({s.int64(0), s.int64(1), name,
                             s.optional_real(2).value_or(std::numeric_limits<double>::quiet_NaN())});
    }
    // Full at the end of this metric: the next metrics are each asked for one point (LIMIT 1), and the first
    // one found says another page follows, resuming after this metric's last point.
  }
  return page;
}

}  // namespace gammalab
