// `gammalab-server backup` against a live coordinator: a real sweep keeps writing metric points while the
// backup copies the database a page at a time; the copy must be whole and hold everything stored before it began.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "server/sqlite.h"
#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"

namespace gammalab::testing {
namespace {

using PointKey = std::tuple<std::int64_t, std::string, std::int64_t>;  // job, metric, step

std::map<PointKey, double> stored_points(const std::string& path) {
  sql::Database db(path);
  sql::Statement s(db.handle(),
                   "SELECT m.job_id, n.name, m.step, m.value FROM metrics m JOIN metric_names n ON n.id = m.name_id");
  std::map<PointKey, double> out;
  while (s.step()) out[{s.int64(0), s.text(1), s.int64(2)}] = s.is_null(3) ? -1e300 : s.real(3);
  return out;
}

struct CommandResult {
  int exit_code = -1;
  std::string out;
};

CommandResult backup(Cluster& cluster, const std::vector<std::string>& args) {
  std::vector<std::string> argv{binary("server/gammalab-server").string(), "backup"};
  argv.insert(argv.end(), args.begin(), args.end());
  ChildProcess process(argv, {}, (cluster.dir() / "backup.log").string());
  CommandResult r;
  while (auto line = process.read_line()) r.out += *line + "\n";
  r.exit_code = process.wait();
  return r;
}

TEST(Backup, CopyTakenWhileASweepWritesIsWholeAndHoldsEveryEarlierPoint) {
  Cluster cluster("backup");
  cluster.prepare_data("d");
  cluster.start_server();
  cluster.start_worker(/*slots=*/2);
  // Long jobs logging every step: they write throughout the backup and are killed with the cluster after it.
  const auto sweep = cluster.write_file("s.yaml", R"(name: s
base:
  model: {preset: tiny-0.03m}
  optim: {lr: 0.01}
  data: {train: d/train.bin, val: d/val.bin}
  batch_tokens: 1024
  steps: 1000000
  log_every: 1
  eval_every: 100000
  ckpt_every: 100000
  threads: 1
axes:
  grid:
    scale.variant: [baseline, none]
)");
  ASSERT_EQ(cluster.cli({"submit", sweep.string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return db.count("SELECT COUNT(*) FROM metrics") >= 2000; }, 300));

  const auto before = stored_points(cluster.database());
  const auto copy = cluster.dir() / "copy.db";
  // One page per step with a pause: the database is a few dozen pages, so the backup spans seconds and many of
  // the server's commits (the trainers report every step).
  const CommandResult r =
      backup(cluster, {copy.string(), "--db", cluster.database(), "--pages-per-step", "1", "--pause-ms", "100"});
  ASSERT_EQ(r.exit_code, 0) << r.out << " see " << (cluster.dir() / "backup.log");
  const auto after_count = db.count("SELECT COUNT(*) FROM metrics");
  const auto report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["event"], "backup");
  EXPECT_GT(report["pages"].get<std::int64_t>(), 10) << r.out;
  EXPECT_GE(report["steps"].get<std::int64_t>(), report["pages"].get<std::int64_t>()) << "one page per step: " << r.out;
  EXPECT_GT(after_count, static_cast<std::int64_t>(before.size())) << "the sweep stopped writing during the backup";
  EXPECT_FALSE(std::filesystem::exists(copy.string() + "-wal"));

  {
    sql::Database copy_db(copy.string());
    sql::Statement check(copy_db.handle(), "PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
  }
  const auto copied = stored_points(copy.string());
  EXPECT_GE(copied.size(), before.size());
  EXPECT_LE(static_cast<std::int64_t>(copied.size()), after_count);
  std::size_t missing = 0;
  for (const auto& [key, value] : before) {
    auto it = copied.find(key);
    if (it == copied.end() || it->second != value) ++missing;
  }
  EXPECT_EQ(missing, 0u) << "of " << before.size() << " points stored before the backup";
  DbReader copy_reader(copy.string());
  EXPECT_EQ(copy_reader.jobs().size(), 2u);

  // A second backup to the same name is refused, naming it; the first copy is untouched.
  const CommandResult again = backup(cluster, {copy.string(), "--db", cluster.database()});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(stored_points(copy.string()).size(), copied.size());
  // Bad step sizes are refused before anything is written.
  const auto other = cluster.dir() / "other.db";
  EXPECT_EQ(backup(cluster, {other.string(), "--db", cluster.database(), "--pages-per-step", "0"}).exit_code, 1);
  EXPECT_FALSE(std::filesystem::exists(other));
}

}  // namespace
}  // namespace gammalab::testing
