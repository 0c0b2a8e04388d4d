// Store: the ends of each job's loss curves (table loss_tails: the last Store::kLossTail points of train and
// val loss), kept by ingest in the transaction that stores the points, copied with a reused job's points.
// What a final loss is computed from (core/scaling/run_point.h): the runs table and the fits read only these,
// so their cost follows the number of jobs, never the length of the curves, and a sweep's runs are one read.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unordered_map>

#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;

namespace {

// (job_id, name, step, tokens, value) rows: NULL stands for NaN, as in metrics.
MetricPoint tail_point(const sql::Statement& s) {
  return {s.int64(2), s.int64(3), s.text(1), s.optional_real(4).value_or(std::numeric_limits<double>::quiet_NaN())};
}

void by_step(std::vector<MetricPoint>& points) {
  std::sort(points.begin(), points.end(), [](const MetricPoint& a, const MetricPoint& b) { return a.step < b.step; });
}

}  // namespace

void Store::keep_loss_tails(std::int64_t job_id, const std::vector<std::pair<std::int64_t, const MetricPoint*>>& stored) {
  sql::Statement& insert = statements_.get(
      "INSERT INTO loss_tails(job_id, name_id, step, tokens, value) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
  // Of a report's loss points only the newest kLossTail of each loss can be in its tail: a report of many (a
  // resumed run's first, a long batch) writes those, not one row per point to delete again.
  std::map<std::int64_t, std::vector<const MetricPoint*>> newest;  // name id -> its points, newest first
  for (const auto& [name_id, p] : stored) newest[name_id].push_back(p);
  for (auto& [name_id, points] : newest) {
    const std::size_t keep = std::min(points.size(), static_cast<std::size_t>(kLossTail));
    std::partial_sort(points.begin(), points.begin() + static_cast<std::ptrdiff_t>(keep), points.end(),
                      [](const MetricPoint* a, const MetricPoint* b) { return a->step > b->step; });
    points.resize(keep);
  }
  for (const auto& [name_id, points] : newest) {
    for (const MetricPoint* p : points) {
      insert.bind(1, job_id).bind(2, name_id).bind(3, p->step).bind(4, p->tokens);
      if (std::isnan(p->value))
        insert.bind_null(5);
      else
        insert.bind(5, p->value);
      insert.run();
    }
  }
  // Below the kLossTail-th newest step (none while the curve is shorter): a range of the key, newest first.
  sql::Statement& trim = statements_.get(
      "DELETE FROM loss_tails WHERE job_id = ?1 AND name_id = ?2 AND step < (SELECT step FROM loss_tails "
      "WHERE job_id = ?1 AND name_id = ?2 ORDER BY step DESC LIMIT 1 OFFSET ?3)");
  for (const auto& [name_id, points] : newest) trim.bind(1, job_id).bind(2, name_id).bind(3, kLossTail - 1).run();
}

void Store::read_loss_tails(sql::StatementCache& statements, std::int64_t job_id, JobLosses& out) {
  sql::Statement& s = statements.get(
      "SELECT t.job_id, n.name, t.step, t.tokens, t.value FROM loss_tails t JOIN metric_names n ON n.id = t.name_id "
      "WHERE t.job_id = ? ORDER BY t.name_id, t.step");
  s.bind(1, job_id);
  while (s.step()) out.add(tail_point(s));
}

JobLosses Store::loss_tails(const std::string& job_id) {
  store_read::ReadPool::Read snapshot = readers_.read();
  JobLosses out;
  out.job_id = job_id;
  read_loss_tails(snapshot.statements(), parse_id(job_id), out);
  return out;
}

std::vector<Store::Run> Store::runs(const std::string& sweep_id) {
  return runs_page(sweep_id, -1, std::numeric_limits<std::size_t>::max()).runs;
}

Store::RunPage Store::runs_page(const std::string& sweep_id, std::int64_t after_ordinal, std::size_t limit) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  const std::int64_t sweep = parse_id(sweep_id);
  RunPage page;
  std::unordered_map<std::int64_t, std::size_t> place;  // job id -> its run in the page
  sql::Statement& jobs = statements.get("SELECT " + store_rows::job_columns() +
                                        ", j.ordinal FROM jobs j WHERE j.sweep_id = ? AND j.ordinal > ? "
                                        "ORDER BY j.ordinal");
  jobs.bind(1, sweep).bind(2, after_ordinal);
  while (jobs.step()) {
    if (page.runs.size() == limit) {  // one more job: there is a next page, from after the last one kept
      page.next_ordinal = page.ordinals.back();
      break;
    }
    place.emplace(jobs.int64(0), page.runs.size());
    page.ordinals.push_back(jobs.int64(store_rows::kJobColumnCount));
    Run& run = page.runs.emplace_back(Run{store_rows::read_job(jobs), {}});
    run.losses.job_id = run.job.id;
  }
  jobs.reset();
  if (page.runs.empty()) return page;
  // The page's tails through its jobs (the sweep's index over the page's ordinals, then each job's range of the
  // tails' key).
  sql::Statement& tails = statements.get(
      "SELECT t.job_id, n.name, t.step, t.tokens, t.value FROM jobs j JOIN loss_tails t ON t.job_id = j.id "
      "JOIN metric_names n ON n.id = t.name_id WHERE j.sweep_id = ? AND j.ordinal > ? AND j.ordinal <= ?");
  tails.bind(1, sweep).bind(2, after_ordinal).bind(3, page.ordinals.back());
  while (tails.step()) {
    if (auto it = place.find(tails.int64(0)); it != place.end()) page.runs[it->second].losses.add(tail_point(tails));
  }
  tails.reset();
  for (Run& run : page.runs) {  // the rows came in no promised order: each curve by step, as loss_tails gives it
    by_step(run.losses.val_loss);
    by_step(run.losses.train_loss);
  }
  return page;
}

}  // namespace gammalab
