// Store: a job's history (table job_events). Every method that changes a job's state calls record_event in
// its own transaction, so the history never misses a change nor holds one that was rolled back.
#include <algorithm>

#include "server/store.h"
#include "server/store/rows.h"

namespace gammalab {

using store_rows::parse_id;
using store_rows::read_state;

void Store::record_event(std::int64_t job_id, std::string_view kind, JobState state, std::int64_t attempt,
                         std::int64_t worker_id, std::string_view detail) {
  sql::Statement& s = statements_.get(
      "INSERT INTO job_events(job_id, at_ms, kind, state, attempt, worker_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, job_id).bind(2, now_ms()).bind(3, kind).bind(4, job_state_name(state)).bind(5, attempt);
  if (worker_id >= 0) {
    s.bind(6, worker_id);
  } else {
    s.bind_null(6);
  }
  s.bind(7, std::string(detail)).run();  // (an empty string_view may have no data: SQLite would store NULL)
}

Store::JobHistory Store::job_events(const std::string& job_id, std::size_t limit) {
  store_read::ReadPool::Read snapshot = readers_.read();
  sql::StatementCache& statements = snapshot.statements();
  JobHistory history;
  // Newest first by the (job_id, id) index, one more than asked to know whether older ones exist.
  sql::Statement& s = statements.get(
      "SELECT e.id, e.at_ms, e.kind, e.state, e.attempt, e.worker_id, COALESCE(w.hostname, ''), e.detail "
      "FROM job_events e LEFT JOIN workers w ON w.id = e.worker_id WHERE e.job_id = ? ORDER BY e.id DESC LIMIT ?");
  s.bind(1, parse_id(job_id)).bind(2, static_cast<std::int64_t>(limit) + 1);
  while (s.step()) {
    if (history.events.size() == limit) {
      history.earlier = true;
      s.reset();
      break;
    }
    JobEvent e;
    e.id = s.int64(0);
    e.at_ms = s.int64(1);
    e.kind = s.text(2);
    e.state = read_state(s, 3);
    e.attempt = static_cast<int>(s.int64(4));
    if (!s.is_null(5)) e.worker_id = std::to_string(s.int64(5));
    e.worker_hostname = s.text(6);
    e.detail = s.text(7);
    history.events.push_back(std::move(e));
  }
  std::reverse(history.events.begin(), history.events.end());
  return history;
}

}  // namespace gammalab
