// deploy/slurm/gammalab-worker.sbatch on a real Slurm (Debian's slurm-wlm and munge, one node on loopback)
// against a real coordinator: a 2-task job array runs a sweep; `scancel` and a time limit with --signal drain
// the workers, which hand their jobs back without losing a point or using up an attempt.
// The Slurm daemons and the coordinator start once for the binary (ctest runs it as one test).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"
#include "tests/slurm/slurm_daemons.h"

namespace gammalab::testing {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

class SlurmWorkers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    slurm_ = new SlurmDaemons();
    cluster_ = new Cluster("slurm");
    cluster_->prepare_data("d");
    cluster_->start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/10000);
  }
  static void TearDownTestSuite() {
    delete slurm_;  // jobs cancelled, daemons stopped
    delete cluster_;
    slurm_ = nullptr;
    cluster_ = nullptr;
  }
  void TearDown() override {
    if (HasFailure()) {
      slurm_->keep_files = true;
      std::fprintf(stderr, "queue at failure:\n%s", slurm_->queue().c_str());
    }
  }

  // Submits the recipe as a job array of `tasks` tasks with `extra` sbatch flags; returns the array's job id.
  // `token`: how the workers get theirs (GAMMALAB_TOKEN_FILE=..., one for all, or GAMMALAB_TOKEN_DIR=...).
  static int submit_workers(int tasks, const std::vector<std::string>& extra = {}, std::string token = {}) {
    if (token.empty()) token = "GAMMALAB_TOKEN_FILE=" + cluster_->worker_token_file().string();
    std::vector<std::string> argv = {"sbatch", "--parsable", "--array=0-" + std::to_string(tasks - 1),
                                     "--cpus-per-task=1",
                                     "--output=" + (slurm_->dir() / "worker-%A_%a.out").string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(std::string(GAMMALAB_SOURCE_DIR) + "/deploy/slurm/gammalab-worker.sbatch");
    const auto r = slurm_->command(
        argv, {"GAMMALAB_COORDINATOR=" + cluster_->address(), "GAMMALAB_SHARED_ROOT=" + cluster_->shared_root().string(),
               "GAMMALAB_DATA_DIR=" + cluster_->data_dir().string(),
               token,
               "GAMMALAB_WORKER=" + binary("worker/gammalab-worker").string(),
               "GAMMALAB_TRAINER=" + binary("worker/trainer/gammalab-train").string(), "GAMMALAB_DRAIN_GRACE_S=20",
               "GAMMALAB_WORKER_ARGS=--poll-interval-ms 200"});
    EXPECT_EQ(r.exit_code, 0) << read_file(slurm_->dir() / "commands.log");
    return std::stoi(r.out);  // "ID" or "ID;cluster"
  }

  // Workers of array job `array` that registered with the coordinator (hostname HOST:slurm-ARRAY_TASK).
  static int registered_workers(DbReader& db, int array) {
    return static_cast<int>(db.count("SELECT COUNT(DISTINCT hostname) FROM workers WHERE hostname LIKE '%:slurm-" +
                                     std::to_string(array) + "\\_%' ESCAPE '\\'"));
  }

  static bool array_gone(int array) {
    return slurm_->queue().find(std::to_string(array) + "_") == std::string::npos;
  }

  static std::string task_output(int array, int task) {
    return read_file(slurm_->dir() / ("worker-" + std::to_string(array) + "_" + std::to_string(task) + ".out"));
  }

  static std::int64_t job_step(DbReader& db, std::int64_t job_id) {
    return db.count("SELECT step FROM jobs WHERE id = " + std::to_string(job_id));
  }

  static std::vector<StoredJob> jobs_of(DbReader& db, const std::string& sweep) {
    const std::int64_t id = db.count("SELECT id FROM sweeps WHERE name = '" + sweep + "'");
    return db.jobs(id);
  }

  // Submits a sweep of long jobs (never finishing on their own) and waits until each runs and stored points.
  static std::vector<StoredJob> start_long_jobs(DbReader& db, const std::string& sweep, const std::string& variants,
                                                std::size_t count) {
    EXPECT_EQ(cluster_->cli({"submit", cluster_->write_file(sweep + ".yaml", tiny_sweep_yaml(sweep, 1000000, variants))
                                           .string()})
                  .exit_code,
              0);
    EXPECT_TRUE(wait_until(
        [&] {
          const auto jobs = jobs_of(db, sweep);
          std::size_t running = 0;
          for (const auto& j : jobs) if (j.state == "running" && job_step(db, j.id) >= 10) ++running;
          return jobs.size() == count && running == count;
        },
        180))
        << "jobs of " << sweep << " did not all run";
    return jobs_of(db, sweep);
  }

  // Every point stored before the drain is still there with its value, and the job is back in the queue with
  // the attempt count it had before it was leased.
  static void expect_handed_back(DbReader& db, const std::string& sweep,
                                 const std::map<std::int64_t, std::vector<StoredPoint>>& before) {
    for (const auto& j : jobs_of(db, sweep)) {
      EXPECT_EQ(j.state, "pending") << j.name << ": " << j.error;
      EXPECT_EQ(j.attempt, 0) << j.name << ": the hand-back used no attempt";
      const auto after = db.points(j.id, "train/loss");
      const auto& kept = before.at(j.id);
      ASSERT_GE(after.size(), kept.size()) << j.name;
      for (std::size_t i = 0; i < kept.size(); ++i) {
        EXPECT_EQ(after[i].step, kept[i].step) << j.name;
        EXPECT_EQ(after[i].value, kept[i].value) << j.name << " step " << kept[i].step;
      }
      const std::string log = read_file(cluster_->shared_root() / "jobs" / std::to_string(j.id) / "log.txt");
      EXPECT_NE(log.find("stopped at step"), std::string::npos) << "the trainer checkpointed and stopped: " << log;
    }
  }

  static SlurmDaemons* slurm_;
  static Cluster* cluster_;
};

SlurmDaemons* SlurmWorkers::slurm_ = nullptr;
Cluster* SlurmWorkers::cluster_ = nullptr;

// Each task of the array with a token of its own (GAMMALAB_TOKEN_DIR): the coordinator's bounds per token and a
// revocation concern one allocation.
TEST_F(SlurmWorkers, TwoTaskArrayRunsASweepToTheEnd) {
  DbReader db(cluster_->database());
  const std::filesystem::path tokens = slurm_->dir() / "worker-tokens";
  std::filesystem::create_directories(tokens);
  for (int task = 0; task < 2; ++task) {
    std::ofstream(tokens / ("task-" + std::to_string(task))) << cluster_->create_token("worker") << "\n";
  }
  const int array = submit_workers(2, {}, "GAMMALAB_TOKEN_DIR=" + tokens.string());
  ASSERT_TRUE(wait_until([&] { return registered_workers(db, array) == 2; }, 120))
      << "workers registered: " << registered_workers(db, array) << "\n" << slurm_->queue();
  EXPECT_EQ(db.count("SELECT COUNT(DISTINCT token_id) FROM workers WHERE hostname LIKE '%:slurm-" +
                     std::to_string(array) + "\\_%' ESCAPE '\\'"),
            2)
      << "the two tasks share a token";
  ASSERT_EQ(cluster_->cli({"submit", cluster_->write_file("small.yaml", tiny_sweep_yaml("small", 60, "[baseline, none]"))
                                         .string()})
                .exit_code,
            0);
  ASSERT_EQ(cluster_->cli({"watch", "small"}).exit_code, 0);
  const auto jobs = jobs_of(db, "small");
  ASSERT_EQ(jobs.size(), 2u);
  for (const auto& j : jobs) {
    EXPECT_EQ(j.state, "succeeded") << j.name << ": " << j.error;
    EXPECT_EQ(j.attempt, 1) << j.name;
    EXPECT_EQ(db.points(j.id, "train/loss").size(), 60u / 5) << j.name;
  }
  ASSERT_EQ(slurm_->command({"scancel", std::to_string(array)}).exit_code, 0);
  ASSERT_TRUE(wait_until([&] { return array_gone(array); }, 90)) << slurm_->queue();
  for (int task = 0; task < 2; ++task) {
    EXPECT_NE(task_output(array, task).find("drained; exiting"), std::string::npos) << task_output(array, task);
  }
}

TEST_F(SlurmWorkers, ScancelDrainsTheWorkersWhichHandTheirJobsBack) {
  DbReader db(cluster_->database());
  const int array = submit_workers(2);
  const auto jobs = start_long_jobs(db, "scancelled", "[baseline, none]", 2);
  std::map<std::int64_t, std::vector<StoredPoint>> before;
  for (const auto& j : jobs) before[j.id] = db.points(j.id, "train/loss");

  ASSERT_EQ(slurm_->command({"scancel", std::to_string(array)}).exit_code, 0);
  ASSERT_TRUE(wait_until([&] { return array_gone(array); }, 90)) << slurm_->queue();
  expect_handed_back(db, "scancelled", before);
  for (int task = 0; task < 2; ++task) {
    EXPECT_NE(task_output(array, task).find("drained; exiting"), std::string::npos) << task_output(array, task);
  }
  EXPECT_EQ(cluster_->cli({"cancel", "scancelled"}).exit_code, 0);
}

TEST_F(SlurmWorkers, TimeLimitSignalDrainsTheWorkersBeforeTheLimit) {
  DbReader db(cluster_->database());
  // A three-minute limit, the signal 100 s ahead, so at 80 s; Slurm may send it up to 60 s early (sbatch(1)) or
  // about 30 s late (it checks time limits periodically): between 20 s (time for the workers to start and lease)
  // and 110 s, well before the limit.
  const int array = submit_workers(2, {"--time=3", "--signal=B:TERM@100"});
  const auto jobs = start_long_jobs(db, "timed", "[baseline]", 1);
  std::map<std::int64_t, std::vector<StoredPoint>> before;
  for (const auto& j : jobs) before[j.id] = db.points(j.id, "train/loss");

  ASSERT_TRUE(wait_until([&] { return array_gone(array); }, 180)) << slurm_->queue();
  expect_handed_back(db, "timed", before);
  for (int task = 0; task < 2; ++task) {
    const std::string out = task_output(array, task);
    EXPECT_NE(out.find("stop signal: draining"), std::string::npos) << "the batch script got --signal: " << out;
    EXPECT_NE(out.find("drained; exiting"), std::string::npos) << out;
    EXPECT_EQ(out.find("DUE TO TIME LIMIT"), std::string::npos) << "drained before the limit: " << out;
  }
  EXPECT_EQ(cluster_->cli({"cancel", "timed"}).exit_code, 0);
}

}  // namespace
}  // namespace gammalab::testing
