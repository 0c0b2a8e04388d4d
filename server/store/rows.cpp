// The store's shared row readers (see server/store/rows.h).
#include "server/store/rows.h"

#include <google/protobuf/util/time_util.h>

#include "proto/convert.h"

namespace gammalab::store_rows {

std::int64_t parse_id(const std::string& id) {
  if (id.empty() || id.size() > 18 || id.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(id);
}

google::protobuf::Timestamp timestamp(std::int64_t ms) {
  return google::protobuf::util::TimeUtil::MillisecondsToTimestamp(ms);
}

JobState read_state(const sql::Statement& s, int column) {
  const std::string name = s.text(column);
  const auto state = parse_job_state(name);
  if (!state) throw sql::Error("jobs.state: unknown state '" + name + "'");
  return *state;
}

v1::Job read_job(const sql::Statement& s) {
  v1::Job j;
  j.set_id(std::to_string(s.int64(0)));
  j.set_sweep_id(std::to_string(s.int64(1)));
  j.set_name(s.text(2));
  j.set_config_hash(s.text(3));
  j.set_config_json(s.text(4));
  j.set_state(to_proto(read_state(s, 5)));
  j.set_attempt(static_cast<int>(s.int64(6)));
  j.set_max_attempts(static_cast<int>(s.int64(7)));
  if (!s.is_null(8)) j.set_worker_id(std::to_string(s.int64(8)));
  j.set_step(s.int64(9));
  j.set_total_steps(s.int64(10));
  j.set_tokens(s.int64(11));
  if (auto loss = s.optional_real(12)) {
    j.set_last_loss(*loss);
    j.set_has_loss(true);
  }
  j.set_tokens_per_s(s.optional_real(13).value_or(0.0));
  *j.mutable_created_at() = timestamp(s.int64(14));
  if (!s.is_null(15)) *j.mutable_started_at() = timestamp(s.int64(15));
  if (!s.is_null(16)) *j.mutable_finished_at() = timestamp(s.int64(16));
  j.set_error(s.text(17));
  j.set_priority(static_cast<int>(s.int64(18)));
  if (!s.is_null(19)) j.set_reused_from(std::to_string(s.int64(19)));
  j.set_stage(s.text(20));
  j.set_slots_per_node(static_cast<int>(s.int64(21)));
  j.set_nodes(static_cast<int>(s.int64(22)));
  return j;
}

}  // namespace gammalab::store_rows
