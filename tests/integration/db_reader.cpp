#include "tests/integration/db_reader.h"

namespace gammalab::testing {

std::vector<StoredJob> DbReader::jobs(std::int64_t sweep_id) {
  sql::Statement s(db_.handle(),
                   "SELECT id, name, state, error, attempt FROM jobs WHERE ? = -1 OR sweep_id = ? ORDER BY id");
  s.bind(1, sweep_id).bind(2, sweep_id);
  std::vector<StoredJob> out;
  while (s.step()) out.push_back({s.int64(0), s.text(1), s.text(2), s.text(3), static_cast<int>(s.int64(4))});
  return out;
}

std::vector<StoredPoint> DbReader::points(std::int64_t job_id, const std::string& name) {
  sql::Statement s(db_.handle(),
                   "SELECT m.step, m.tokens, m.value FROM metrics m JOIN metric_names n ON n.id = m.name_id "
                   "WHERE m.job_id = ? AND n.name = ? ORDER BY m.step");
  s.bind(1, job_id).bind(2, name);
  std::vector<StoredPoint> out;
  while (s.step()) out.push_back({s.int64(0), s.int64(1), s.real(2), s.is_null(2)});
  return out;
}

std::int64_t DbReader::count(const std::string& sql_count_query) {
  sql::Statement s(db_.handle(), sql_count_query);
  return s.step() ? s.int64(0) : -1;
}

std::string DbReader::state(std::int64_t job_id) {
  sql::Statement s(db_.handle(), "SELECT state FROM jobs WHERE id = ?");
  s.bind(1, job_id);
  return s.step() ? s.text(0) : "";
}

}  // namespace gammalab::testing
