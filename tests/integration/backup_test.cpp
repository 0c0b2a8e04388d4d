// `gammalab-server backup` against a live coordinator: a real sweep keeps writing metric points while the
// backup copies the database a page at a time; the copy must be whole and hold everything stored before it began.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "core/file_util.h"
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

// The documented restore (docs/deploy.md, "Restore"), end to end: a backup taken early, runs that go on well past
// it and checkpoint, the coordinator and the worker killed, the backup put in place. The job the backup knew must
// end with every point of its curve, each the uninterrupted run's value: its checkpoints keep only the lines
// since the database's later steps, so it trains again from step 0 rather than succeed with a hole. A job
// submitted after the backup is lost with it; the job submitted again gets its id, and must not resume the lost
// job's checkpoints in that id's directory.
TEST(Backup, TheDocumentedRestoreKeepsEveryPointAndNoJobResumesAnothersCheckpoint) {
  Cluster cluster("restore");
  cluster.prepare_data("d");
  cluster.start_server();
  cluster.start_worker(/*slots=*/2);
  const auto sweep = [&](const std::string& name, const std::string& lr, int steps) {
    return cluster.write_file(name + ".yaml", "name: " + name + R"(
base:
  model: {preset: tiny-0.03m}
  optim: {lr: )" + lr + R"(}
  data: {train: d/train.bin, val: d/val.bin}
  batch_tokens: 1024
  steps: )" + std::to_string(steps) + R"(
  log_every: 10
  eval_every: 100000
  ckpt_every: 100
  threads: 1
  schedule: {kind: constant}
axes:
  grid:
    scale.variant: [baseline]
)");
  };
  ASSERT_EQ(cluster.cli({"submit", sweep("kept", "0.01", 1200).string()}).exit_code, 0);
  const auto last_step = [&](DbReader& db, std::int64_t job) {
    return db.count("SELECT COALESCE(MAX(step), 0) FROM metrics WHERE job_id = " + std::to_string(job));
  };
  {
    DbReader db(cluster.database());
    ASSERT_TRUE(wait_until([&] { return last_step(db, 1) >= 100; }, 300));
  }
  const auto copy = cluster.dir() / "backup.db";
  ASSERT_EQ(backup(cluster, {copy.string(), "--db", cluster.database()}).exit_code, 0);
  // Submitted after the backup: lost with it. Job 2 checkpoints under jobs/2.
  ASSERT_EQ(cluster.cli({"submit", sweep("lost", "0.02", 1200).string()}).exit_code, 0);
  {
    DbReader db(cluster.database());
    ASSERT_TRUE(wait_until([&] { return last_step(db, 1) >= 600 && last_step(db, 2) >= 200; }, 300));
  }
  ASSERT_TRUE(std::filesystem::exists(cluster.shared_root() / "jobs" / "2" / "ckpt" / "latest"));
  cluster.kill_worker(0, SIGKILL);
  cluster.wait_worker(0);
  cluster.kill_server(SIGKILL);

  // Restore: the database and its -wal and -shm aside, the backup in place.
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::filesystem::path file = cluster.database() + suffix;
    if (std::filesystem::exists(file)) std::filesystem::rename(file, file.string() + ".broken");
  }
  std::filesystem::copy_file(copy, cluster.database());
  cluster.start_server();
  cluster.start_worker(/*slots=*/2);
  // Submitted again after the restore, with another config: it gets id 2, the lost job's.
  ASSERT_EQ(cluster.cli({"submit", sweep("again", "0.005", 300).string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until(
      [&] {
        const auto jobs = db.jobs();
        return jobs.size() == 2 && jobs[0].state == "succeeded" && jobs[1].state == "succeeded";
      },
      600));
  const auto jobs = db.jobs();
  ASSERT_EQ(jobs[1].id, 2) << "the job submitted again did not get the lost job's id";
  for (const std::int64_t job : {1, 2}) {
    SCOPED_TRACE("job " + std::to_string(job));
    std::map<std::int64_t, double> stored;
    for (const StoredPoint& p : db.points(job, "train/loss")) stored[p.step] = p.value;
    const std::map<std::int64_t, double> expected = standalone_curve(cluster, job);
    ASSERT_EQ(expected.size(), job == 1 ? 120u : 30u);
    EXPECT_EQ(stored.size(), expected.size()) << "points lost";
    EXPECT_EQ(stored, expected) << "a curve that is not the job's own";
  }
  const std::string log1 = read_file(cluster.shared_root() / "jobs" / "1" / "log.txt");
  EXPECT_NE(log1.find("but the coordinator stores them only up to step"), std::string::npos) << log1;
  const std::string log2 = read_file(cluster.shared_root() / "jobs" / "2" / "log.txt");
  EXPECT_NE(log2.find("another job's, left by a job of the same id"), std::string::npos) << log2;
}

}  // namespace
}  // namespace gammalab::testing
