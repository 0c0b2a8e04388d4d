// Store: alerts (core/alert.h), one per job, attempt and rule (schema migration 22).
#include "server/schema.h"
#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;

namespace {

constexpr std::string_view kAlertColumns =
    "a.id, j.sweep_id, a.job_id, j.name, a.attempt, a.rule, a.step, a.value, a.message, a.raised_ms, s.name";

Alert read_alert(sql::Statement& s) {
  Alert a;
  a.id = s.int64(0);
  a.sweep_id = std::to_string(s.int64(1));
  a.job_id = std::to_string(s.int64(2));
  a.job_name = s.text(3);
  a.attempt = static_cast<int>(s.int64(4));
  a.rule = s.text(5);
  if (!s.is_null(6)) a.step = s.int64(6);
  if (!s.is_null(7)) a.value = s.real(7);
  a.message = s.text(8);
  a.raised_ms = s.int64(9);
  a.sweep_name = s.text(10);
  return a;
}

}  // namespace

bool Store::raise_alert(const Alert& alert) {
  absl::MutexLock lock(&mutex_);
  const bool raised = raise_alert_locked(alert);
  if (raised) changed();
  return raised;
}

bool Store::raise_alert_locked(const Alert& alert) {
  const std::int64_t job = parse_id(alert.job_id);
  sql::Statement& insert = statements_.get(
      "INSERT INTO alerts(job_id, attempt, rule, step, value, message, raised_ms) "
      "SELECT id, ?, ?, ?, ?, ?, ? FROM jobs WHERE id = ? ON CONFLICT(job_id, attempt, rule) DO NOTHING");
  insert.bind(1, alert.attempt).bind(2, alert.rule);
  if (alert.step) {
    insert.bind(3, *alert.step);
  } else {
    insert.bind_null(3);
  }
  if (alert.value) {
    insert.bind(4, *alert.value);
  } else {
    insert.bind_null(4);
  }
  insert.bind(5, alert_message_line(alert.message)).bind(6, now_ms()).bind(7, job).run();
  return db_.changes() > 0;
}

std::vector<Alert> Store::alerts(const std::string& sweep_id, std::int64_t after_id, std::size_t limit,
                                 bool& truncated) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::Statement& s = snapshot.statements().get(
      "SELECT " + std::string(kAlertColumns) + " FROM alerts a JOIN jobs j ON j.id = a.job_id JOIN sweeps s ON s.id = j.sweep_id "
      "WHERE a.id > ? AND (? = '' OR j.sweep_id = ?) ORDER BY a.id DESC LIMIT ?");
  s.bind(1, after_id).bind(2, sweep_id).bind(3, sweep_id.empty() ? std::int64_t{-1} : parse_id(sweep_id));
  s.bind(4, static_cast<std::int64_t>(limit) + 1);
  std::vector<Alert> out;
  while (s.step()) out.push_back(read_alert(s));
  truncated = out.size() > limit;
  if (truncated) out.pop_back();
  return out;
}

std::map<std::string, std::int64_t> Store::alert_counts() {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::Statement& s = snapshot.statements().get("SELECT rule, COUNT(*) FROM alerts GROUP BY rule");
  std::map<std::string, std::int64_t> out;
  while (s.step()) out[s.text(0)] = s.int64(1);
  return out;
}

std::vector<Store::Progress> Store::active_progress() {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::Statement& s = snapshot.statements().get("SELECT id, attempt, step, state = '" +
                                                std::string(job_state_name(JobState::kRunning)) +
                                                "' FROM jobs WHERE state IN (" + sql_active_states() + ") ORDER BY id");
  std::vector<Progress> out;
  while (s.step()) out.push_back({std::to_string(s.int64(0)), static_cast<int>(s.int64(1)), s.int64(2), s.int64(3) != 0});
  return out;
}

}  // namespace gammalab
