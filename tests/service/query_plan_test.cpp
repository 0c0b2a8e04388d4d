// The plans SQLite chooses for the store's reads whose cost must grow with what they return, not with the table:
// a sweep's jobs and runs in their order (server/store/jobs.cpp, loss_tails.cpp) without a sort of whole rows,
// the change feed (job_changes.cpp) through the change index, the lease (leases.cpp) through the ready index.
// The statements below have the shape of the store's (their WHERE and ORDER BY); the columns do not change a
// plan's index. A plan that sorts whole rows spills to a temporary file past the page cache: /runs took 27x as
// long for 10x the jobs before jobs_by_sweep_ordinal (docs/perf.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>

#include "server/schema.h"
#include "server/sqlite.h"

namespace gammalab::testing {
namespace {

std::string plan(sql::Database& db, const std::string& query) {
  sql::Statement explain(db.handle(), "EXPLAIN QUERY PLAN " + query);
  std::string out;
  while (explain.step()) out += explain.text(3) + "\n";
  return out;
}

class QueryPlans : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("gammalab-query-plan-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".db");
    std::filesystem::remove(path_);
    db_ = std::make_unique<sql::Database>(path_.string());
    migrate(*db_);
  }
  void TearDown() override {
    db_.reset();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path_.string() + suffix);
  }
  std::filesystem::path path_;
  std::unique_ptr<sql::Database> db_;
};

TEST_F(QueryPlans, ASweepsJobsAndRunsComeInOrderWithoutASort) {
  for (const std::string query : {
           "SELECT j.id, j.config_json FROM jobs j WHERE j.sweep_id = ? ORDER BY j.ordinal",
           "SELECT j.id, j.config_json, j.ordinal FROM jobs j WHERE j.sweep_id = ? AND j.ordinal > ? ORDER BY "
           "j.ordinal",
       }) {
    const std::string p = plan(*db_, query);
    EXPECT_NE(p.find("jobs_by_sweep_ordinal"), std::string::npos) << query << "\n" << p;
    EXPECT_EQ(p.find("TEMP B-TREE"), std::string::npos) << "a sort of the sweep's rows:\n" << query << "\n" << p;
  }
}

TEST_F(QueryPlans, TheChangeFeedAndTheLeaseKeepTheirOwnIndexes) {
  // Few rows changed since a watcher's last round: their range of the change index, then a sort of those few.
  const std::string feed =
      plan(*db_, "SELECT j.id, j.config_json FROM jobs j WHERE j.sweep_id = ? AND j.changed_seq > ? ORDER BY j.ordinal");
  EXPECT_NE(feed.find("jobs_by_sweep_change (sweep_id=? AND changed_seq>?)"), std::string::npos) << feed;
  const std::string lease = plan(*db_,
                                 "SELECT j.id FROM jobs j WHERE j.sweep_id = ?4 AND j.state = ?1 AND "
                                 "j.slots_per_node <= ?2 AND j.waiting = 0 AND j.not_before_ms <= ?6 "
                                 "ORDER BY j.ordinal LIMIT 1");
  EXPECT_NE(lease.find("jobs_ready (sweep_id=? AND state=?)"), std::string::npos) << lease;
  EXPECT_EQ(lease.find("TEMP B-TREE"), std::string::npos) << lease;
}

}  // namespace
}  // namespace gammalab::testing
