// The store's shared row readers (see server/store/rows.h).
#include "server/store/rows.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>

#include "core/metric_names.h"
#include "server/store.h"

namespace gammalab::store_rows {

std::int64_t parse_id(const std::string& id) {
  if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(id);
}

JobState read_state(const sql::Statement& s, int column) {
  const std::string name = s.text(column);
  const auto state = parse_job_state(name);
  if (!state) throw sql::Error("jobs.state: unknown state '" + name + "'");
  return *state;
}

const std::string& sql_branch_point_written() {
  static const std::string sql =
      "EXISTS (SELECT 1 FROM metrics m WHERE m.job_id = j.parent_id AND m.step = j.branch_step AND m.name_id = "
      "(SELECT n.id FROM metric_names n WHERE n.name = '" + std::string(metric_names::kBranchPoint) + "'))";
  return sql;
}

const std::string& sql_branch_may_start() {
  static const std::string sql = "(j.parent_id IS NULL OR " + sql_branch_point_written() +
                                 " OR (SELECT p.state FROM jobs p WHERE p.id = j.parent_id) = '" +
                                 std::string(job_state_name(JobState::kSucceeded)) + "')";
  return sql;
}

const std::string& job_columns() {
  static const std::string columns =
      "j.id, j.sweep_id, j.name, j.config_hash, j.config_json, j.state, j.attempt, j.max_attempts, j.worker_id, "
      "j.step, j.total_steps, j.tokens, j.last_loss, j.tokens_per_s, j.created_ms, j.started_ms, j.finished_ms, "
      "j.error, j.priority, j.reused_from, j.stage, j.slots_per_node, j.nodes, j.parent_id, j.branch_step, j.branch_points, "
      // A branch's parent's state, and the job whose checkpoint it starts from once written.
      "(SELECT p.state FROM jobs p WHERE p.id = j.parent_id), "
      "(SELECT COALESCE(p.reused_from, p.id) FROM jobs p WHERE p.id = j.parent_id AND " + sql_branch_point_written() +
      "), "
      // The job's uid, and that of the job whose checkpoint a branch starts from (read only when there is one).
      "j.uid, (SELECT s.uid FROM jobs p JOIN jobs s ON s.id = COALESCE(p.reused_from, p.id) WHERE p.id = j.parent_id), "
      // Not leased before this time: a failed branch attempt's back-off (Store::finish).
      "j.not_before_ms";
  return columns;
}

namespace {

// Why a pending branch is not leased yet; empty when it may be.
std::string branch_wait(const JobRecord& j, const sql::Statement& s) {
  if (j.state != JobState::kPending || j.parent_id.empty() || !j.branch_start_job_id.empty()) return "";
  const std::string run = "its run (job " + j.parent_id + ")";
  const std::string at = "its checkpoint at step " + std::to_string(j.branch_step);
  if (s.is_null(26)) return "waits for " + run + " to write " + at;
  const JobState parent = read_state(s, 26);
  if (parent == JobState::kSucceeded) return "";
  if (is_terminal(parent)) {
    return run + " ended " + std::string(job_state_name(parent)) + " before writing " + at +
           ": this branch waits until a rerun of it writes one (gammalab submit --rerun)";
  }
  return "waits for " + run + " to write " + at;
}

}  // namespace

JobRecord read_job(const sql::Statement& s) {
  auto optional_id = [&](int column) { return s.is_null(column) ? std::string() : std::to_string(s.int64(column)); };
  JobRecord j;
  j.id = std::to_string(s.int64(0));
  j.sweep_id = std::to_string(s.int64(1));
  j.name = s.text(2);
  j.config_hash = s.text(3);
  j.config_json = s.text(4);
  j.state = read_state(s, 5);
  j.attempt = static_cast<int>(s.int64(6));
  j.max_attempts = static_cast<int>(s.int64(7));
  j.worker_id = optional_id(8);
  j.step = s.int64(9);
  j.total_steps = s.int64(10);
  j.tokens = s.int64(11);
  j.last_loss = s.optional_real(12);
  j.tokens_per_s = s.optional_real(13).value_or(0.0);
  j.created_ms = s.int64(14);
  if (!s.is_null(15)) j.started_ms = s.int64(15);
  if (!s.is_null(16)) j.finished_ms = s.int64(16);
  j.error = s.text(17);
  j.priority = static_cast<int>(s.int64(18));
  j.reused_from = optional_id(19);
  j.stage = s.text(20);
  j.slots_per_node = static_cast<int>(s.int64(21));
  j.nodes = static_cast<int>(s.int64(22));
  j.parent_id = optional_id(23);
  j.branch_step = s.int64(24);
  for (absl::string_view step : absl::StrSplit(s.text(25), ',', absl::SkipEmpty())) {  // (this Abseil has its own string_view)
    std::int64_t value = 0;
    if (absl::SimpleAtoi(step, &value)) j.branch_points.push_back(value);
  }
  j.branch_start_job_id = optional_id(27);
  j.uid = s.text(28);
  if (!j.branch_start_job_id.empty() && !s.is_null(29)) j.branch_start_job_uid = s.text(29);
  j.pending_reason = branch_wait(j, s);
  const std::int64_t not_before = s.int64(30), now = now_ms();
  if (j.pending_reason.empty() && j.state == JobState::kPending && not_before > now) {
    j.pending_reason = "its last attempt failed: the next starts in " + std::to_string((not_before - now + 999) / 1000) +
                       " s at the earliest (a branch's back-off)";
  }
  return j;
}

}  // namespace gammalab::store_rows
