// Store: the one write of a job's state (Store::transition). Every change of state goes through it, so that
// each is checked against core/job_state.h's table, fenced by the state it leaves, and recorded in the job's
// history in the same transaction.
#include <string>
#include <type_traits>
#include <variant>

#include "server/store.h"

namespace gammalab {

std::optional<std::int64_t> Store::transition(std::int64_t job_id, JobState from, JobState to,
                                              std::initializer_list<ColumnWrite> writes, const StateEvent& event) {
  check_transition(from, to);
  std::string sql = "UPDATE jobs SET state = ?";
  for (const ColumnWrite& w : writes) sql.append(", ").append(w.assignment);
  sql += " WHERE id = ? AND state = ? RETURNING attempt, worker_id";
  sql::Statement& update = statements_.get(sql);
  int at = 1;
  update.bind(at++, job_state_name(to));
  for (const ColumnWrite& w : writes) {
    std::visit(
        [&](const auto& value) {
          using T = std::decay_t<decltype(value)>;
          if constexpr (std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::string>) {
            update.bind(at++, value);
          } else if constexpr (std::is_same_v<T, std::nullptr_t>) {
            update.bind_null(at++);
          }
        },
        w.value);
  }
  update.bind(at, job_id);
  update.bind(at + 1, job_state_name(from));
  if (!update.step()) return std::nullopt;  // not in `from` (any more): nothing written
  const std::int64_t attempt = update.int64(0);
  const std::int64_t worker = update.is_null(1) ? -1 : update.int64(1);
  update.reset();  // (the change is made whole at the first step; the id is unique, so that was its one row)
  record_event(job_id, event.kind, to, event.attempt.value_or(attempt), event.worker_id.value_or(worker),
               event.detail);
  return attempt;
}

}  // namespace gammalab
