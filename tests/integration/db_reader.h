#pragma once
// Reads what the coordinator stored, straight from its SQLite file, so tests check the stored truth.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "server/sqlite.h"

namespace gammalab::testing {

struct StoredJob {
  std::int64_t id = 0;
  std::string name, state, error;
  int attempt = 0;
};

struct StoredPoint {
  std::int64_t step = 0, tokens = 0;
  double value = 0;
  bool is_null = false;
};

class DbReader {
 public:
  explicit DbReader(const std::string& path) : db_(path) {}
  std::vector<StoredJob> jobs(std::int64_t sweep_id = -1);
  // Points of one metric of one job, in step order (duplicates would show as repeated steps).
  std::vector<StoredPoint> points(std::int64_t job_id, const std::string& name);
  std::int64_t count(const std::string& sql_count_query);
  // A job's state as stored ("pending", "succeeded", ...); empty for an unknown job.
  std::string state(std::int64_t job_id);

 private:
  sql::Database db_;
};

}  // namespace gammalab::testing
