// Store: what a scaling-law fit reads (succeeded jobs with their loss curves) and the versioned fits.
#include <algorithm>
#include <iterator>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/job_stage.h"
#include "core/metric_names.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;

std::vector<Store::StageJob> Store::stage_jobs(const std::string& sweep_id, const std::string& stage) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  std::vector<StageJob> out;
  sql::Statement& jobs = statements.get(
      "SELECT id, name, config_json, state FROM jobs WHERE sweep_id = ? AND stage = ? ORDER BY ordinal");
  jobs.bind(1, parse_id(sweep_id)).bind(2, stage);
  while (jobs.step()) {
    StageJob job{FitInput{std::to_string(jobs.int64(0)), jobs.text(1), jobs.text(2), {}, {}},
                 store_rows::read_state(jobs, 3)};
    if (job.state != JobState::kSucceeded) {  // only a finished run has a final loss to read
      out.push_back(std::move(job));
      continue;
    }
    read_loss_tails(statements, jobs.int64(0), job.losses);
    out.push_back(std::move(job));
  }
  return out;
}

std::vector<Store::FitInput> Store::fit_inputs(const std::string& sweep_id, const std::string& stage) {
  std::vector<FitInput> out;
  for (auto& job : stage_jobs(sweep_id, stage)) {
    if (job.state == JobState::kSucceeded) out.push_back(std::move(job.losses));
  }
  return out;
}

std::map<std::string, std::vector<std::string>> Store::succeeded_jobs_by_sweep() {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  std::map<std::string, std::vector<std::string>> out;
  sql::Statement& s =
      statements.get("SELECT sweep_id, id FROM jobs WHERE state = ? AND stage = 'main' ORDER BY sweep_id, id");
  s.bind(1, job_state_name(JobState::kSucceeded));
  while (s.step()) out[std::to_string(s.int64(0))].push_back(std::to_string(s.int64(1)));
  return out;
}

int Store::add_fit(const std::string& sweep_id, const std::string& group_by, const std::vector<std::string>& job_ids,
                   const std::vector<LawReport>& reports) {
  if (reports.empty()) throw std::invalid_argument("add_fit: no report to store");
  absl::MutexLock lock(&mutex_);
  sql::Transaction tx(db_);
  sql::Statement& next = statements_.get("SELECT COALESCE(MAX(version), 0) + 1 FROM fits WHERE sweep_id = ?");
  next.bind(1, parse_id(sweep_id));
  if (!next.step()) throw sql::Error("add_fit: no version returned");
  const std::int64_t version = next.int64(0);
  next.reset();
  sql::Statement& insert = statements_.get(
      "INSERT INTO fits(sweep_id, version, created_ms, law, group_by, job_ids, report) VALUES (?, ?, ?, ?, ?, ?, ?)");
  const std::int64_t created = now_ms();
  const std::string ids = nlohmann::json(job_ids).dump();
  for (const auto& report : reports) {
    insert.bind(1, parse_id(sweep_id)).bind(2, version).bind(3, created).bind(4, report.law).bind(5, group_by);
    insert.bind(6, ids).bind(7, report.report_json).run();
  }
  tx.commit();
  changed();
  return static_cast<int>(version);
}

std::vector<FitRecord> Store::fits(const std::string& sweep_id, bool latest_only) {
  std::vector<FitRecord> out;
  std::optional<int> below;
  for (;;) {
    FitPage page = fits_page(sweep_id, below, latest_only ? 1 : 100);
    std::move(page.fits.begin(), page.fits.end(), std::back_inserter(out));
    if (latest_only || page.next_below < 0) return out;
    below = page.next_below;
  }
}

Store::FitPage Store::fits_page(const std::string& sweep_id, std::optional<int> below_version, std::size_t versions) {
  if (versions < 1) throw std::invalid_argument("fits_page: versions must be at least 1");
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  const std::int64_t sweep = parse_id(sweep_id);
  const std::int64_t below = below_version.value_or(std::numeric_limits<int>::max());
  // The page's versions first (one more tells whether an older one remains), then their reports.
  sql::Statement& listed = statements.get(
      "SELECT DISTINCT version FROM fits WHERE sweep_id = ? AND version < ? ORDER BY version DESC LIMIT ?");
  listed.bind(1, sweep).bind(2, below).bind(3, static_cast<std::int64_t>(std::min<std::size_t>(versions, 1 << 20)) + 1);
  std::vector<std::int64_t> found;
  while (listed.step()) found.push_back(listed.int64(0));
  FitPage page;
  if (found.empty()) return page;
  if (found.size() > versions) {
    found.resize(versions);
    page.next_below = static_cast<int>(found.back());
  }
  sql::Statement& s = statements.get(
      "SELECT version, created_ms, law, group_by, job_ids, report FROM fits WHERE sweep_id = ? AND version <= ? "
      "AND version >= ? ORDER BY version DESC, id");
  s.bind(1, sweep).bind(2, found.front()).bind(3, found.back());
  while (s.step()) {
    page.fits.push_back(FitRecord{.version = static_cast<int>(s.int64(0)),
                                  .created_ms = s.int64(1),
                                  .law = s.text(2),
                                  .group_by = s.text(3),
                                  .job_ids = nlohmann::json::parse(s.text(4)).get<std::vector<std::string>>(),
                                  .report_json = s.text(5)});
  }
  return page;
}

}  // namespace gammalab
