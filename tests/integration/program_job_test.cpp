// Command jobs (docs/own-program.md) with real parts: a Python training program of a user's own, run by real
// workers through the sweep's `command:`, killed with SIGKILL mid-run and resumed elsewhere to the curve an
// uninterrupted run prints; and programs that break the contract, each failed with the rule it broke while
// what they printed before stays stored as it was.
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>

#include <map>

#include "core/metric.h"
#include "core/metric_names.h"
#include "core/shared_root.h"
#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"

namespace gammalab::testing {
namespace {

const std::filesystem::path kProgram = std::filesystem::path(GAMMALAB_SOURCE_DIR) / "tests/integration/programs/toy_sgd.py";
const std::filesystem::path kRankedProgram =
    std::filesystem::path(GAMMALAB_SOURCE_DIR) / "tests/integration/programs/ranked_sgd.py";
const std::filesystem::path kTrainer = std::filesystem::path(GAMMALAB_BINARY_DIR) / "worker/trainer/gammalab-train";

// The workers find the gammalab client as `pip install ./python` would put it on the path.
void client_on_python_path() {
  ASSERT_EQ(::setenv("PYTHONPATH", (std::filesystem::path(GAMMALAB_SOURCE_DIR) / "python").c_str(), 1), 0);
}

// A sweep whose jobs run `program` with the config's lr, width and seed on its command line, then `extra_args`;
// `base_extra` adds fields to the jobs' config.
std::string command_sweep(const std::filesystem::path& program, const std::string& name, int steps,
                          const std::string& extra_args, const std::string& base_extra, const std::string& seeds,
                          int max_attempts) {
  return "name: " + name + "\ncommand: [python3, " + program.string() +
         ", --lr, \"{optim.lr}\", --width, \"{model.d_model}\", --seed, \"{seed}\"" + extra_args + "]\n" +
         "base:\n"
         "  model: {d_model: 8, n_heads: 2}\n"
         "  optim: {lr: 0.05}\n"
         "  batch_tokens: 256\n"
         "  steps: " + std::to_string(steps) + "\n"
         "  log_every: 5\n"
         "  declared_params: model.d_model\n" + base_extra +
         "seeds: " + seeds + "\n"
         "max_attempts: " + std::to_string(max_attempts) + "\n";
}

std::string program_sweep(const std::string& name, int steps, const std::string& extra_args, const std::string& seeds = "[0]") {
  return command_sweep(kProgram, name, steps, ", --ckpt-every, \"{ckpt_every}\"" + extra_args, "  ckpt_every: 20\n", seeds, 3);
}

std::int64_t stored_step(DbReader& db, std::int64_t job) {
  return db.count("SELECT COALESCE(MAX(step), -1) FROM metrics WHERE job_id = " + std::to_string(job));
}

// train/loss as the program prints it run by hand from step 0 with the job's config: no worker, no checkpoint.
std::map<std::int64_t, double> standalone_program_curve(Cluster& cluster, std::int64_t job, const std::string& seed) {
  const auto config = cluster.shared_root() / shared_root::job_config_path(std::to_string(job));
  const auto ckpt = cluster.dir() / ("standalone-ckpt-" + std::to_string(job));
  ChildProcess program({"/usr/bin/python3", kProgram.string(), "--lr", "0.05", "--width", "8", "--seed", seed},
                       {"GAMMALAB_CONFIG=" + config.string(), "GAMMALAB_CHECKPOINT_DIR=" + ckpt.string()},
                       (cluster.dir() / "standalone.log").string());
  return train_loss_curve(program);
}

// Whether a process of `program` runs for job `job` of this cluster: its command line names the program, and its
// environment the cluster's shared root and the job (other tests' clusters run the same programs as their job 1).
bool job_process_running(const Cluster& cluster, const std::filesystem::path& program, std::int64_t job) {
  const std::string root = "GAMMALAB_SHARED_ROOT=" + cluster.shared_root().string() + '\0';
  const std::string id = "GAMMALAB_JOB_ID=" + std::to_string(job) + '\0';
  for (const auto& p : processes()) {
    const std::string env = '\0' + p.environment;
    if (!p.zombie && p.cmdline.find(program.string()) != std::string::npos &&
        env.find('\0' + root) != std::string::npos && env.find('\0' + id) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(ProgramJobs, AProgramKilledMidRunResumesElsewhereToTheCurveOfAnUninterruptedRun) {
  constexpr int kSteps = 300;
  client_on_python_path();
  Cluster cluster("program-resume");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/2000);
  const int first = cluster.start_worker();
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", program_sweep("s", kSteps, ", --sleep, \"0.02\"")).string()})
                .exit_code,
            0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && stored_step(db, db.jobs()[0].id) >= 60; }, 120));
  const std::int64_t job = db.jobs()[0].id;
  cluster.kill_worker(first, SIGKILL);
  cluster.wait_worker(first);
  const std::int64_t at_kill = stored_step(db, job);
  ASSERT_LT(at_kill, kSteps) << "the program finished before the worker was killed; make it longer";
  cluster.start_worker();
  ASSERT_TRUE(wait_until([&] { return db.state(job) == "succeeded"; }, 180)) << db.state(job);

  const auto stored = db.points(job, "train/loss");
  ASSERT_EQ(stored.size(), std::size_t{kSteps / 5}) << "one point per logged step, none twice, none missing";
  const auto expected = standalone_program_curve(cluster, job, "0");
  ASSERT_EQ(expected.size(), stored.size());
  for (const auto& p : stored) {
    ASSERT_TRUE(expected.count(p.step)) << "step " << p.step;
    EXPECT_EQ(p.value, expected.at(p.step)) << "step " << p.step << ": bit for bit";
    EXPECT_EQ(p.tokens, p.step * 256) << "step " << p.step;
  }
  EXPECT_EQ(db.points(job, "val/loss").size(), 1u) << "the val loss at the last step, which the fits read";
  EXPECT_EQ(db.points(job, "user/weight_norm").size(), std::size_t{kSteps / 5}) << "its metric of its own, each once";
  EXPECT_GE(db.jobs()[0].attempt, 2) << "the killed attempt counted";
  // Its log names the program and the environment it ran with.
  const auto log = cluster.cli({"logs", std::to_string(job)});
  EXPECT_NE(log.out.find("running the job's own program: "), std::string::npos) << log.out;
  EXPECT_NE(log.out.find(kProgram.string() + " --lr 0.05 --width 8 --seed 0 --ckpt-every 20"), std::string::npos) << log.out;
}

struct Breach {
  std::string misbehave;  // toy_sgd.py --misbehave
  std::string error;      // what the job's error must say
  std::int64_t stored_through;  // the last step stored: what came before the breach, nothing after
};

TEST(ProgramJobs, AProgramThatBreaksTheContractFailsWithTheRuleItBrokeAndWhatItPrintedBeforeStaysStored) {
  client_on_python_path();
  Cluster cluster("program-breach");
  cluster.start_server();
  cluster.start_worker(6);
  const std::vector<Breach> breaches = {
      {"bare-nan", "names \"metrics\" but is not JSON (a bare NaN", 5},
      {"huge-line", "a line of more than 1048576 bytes", 5},
      {"back", "step 5 after step 15: the steps of a run's lines go back", 15},
      {"hole", "no metric line between step 10 and step 20, more than log_every = 5 apart", 10},
      {"early-exit", "exited with status 0, but its last metric line is at step 15, not the job's last step 40", 15},
      {"unknown-metric", "metric name 'accuracy': not a metric gammalab-train reports", 5},
      {"too-many-own", "at step 10: more than 32 metrics of its own (user/NAME), the limit per job", 5},
  };
  for (const Breach& b : breaches) {
    const std::string file = cluster.write_file(b.misbehave + ".yaml",
                                                program_sweep(b.misbehave, 40, ", --misbehave, " + b.misbehave)).string();
    ASSERT_EQ(cluster.cli({"submit", file}).exit_code, 0) << b.misbehave;
  }
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until(
      [&] {
        const auto jobs = db.jobs();
        return jobs.size() == breaches.size() &&
               std::all_of(jobs.begin(), jobs.end(), [](const StoredJob& j) { return j.state == "failed"; });
      },
      120));
  const auto jobs = db.jobs();  // one per sweep, in the order submitted
  for (std::size_t i = 0; i < breaches.size(); ++i) {
    const Breach& b = breaches[i];
    const StoredJob& job = jobs[i];
    EXPECT_NE(job.error.find("the program broke its contract"), std::string::npos) << b.misbehave << ": " << job.error;
    EXPECT_NE(job.error.find(b.error), std::string::npos) << b.misbehave << ": " << job.error;
    EXPECT_EQ(job.attempt, 1) << b.misbehave << ": a breach is the program's own, so no attempt follows";
    EXPECT_EQ(stored_step(db, job.id), b.stored_through) << b.misbehave;
    // What came before the breach is stored as printed, each step once.
    const auto points = db.points(job.id, "train/loss");
    for (std::size_t k = 1; k < points.size(); ++k) EXPECT_LT(points[k - 1].step, points[k].step) << b.misbehave;
  }
}

// A program that floods its output: the job's log keeps --max-program-log-bytes of it and says so, while every
// metric line is still stored and the job succeeds.
TEST(ProgramJobs, AProgramThatFloodsItsOutputFillsItsLogOnlyToTheLimit) {
  client_on_python_path();
  Cluster cluster("program-flood");
  cluster.start_server();
  constexpr int kLimit = 200000;
  WorkerSpec spec;
  spec.extra_args = {"--max-program-log-bytes", std::to_string(kLimit)};
  cluster.start_worker(spec);
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", program_sweep("s", 40, ", --misbehave, flood-stderr")).string()})
                .exit_code,
            0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && db.state(db.jobs()[0].id) == "succeeded"; }, 120))
      << (db.jobs().empty() ? "" : db.jobs()[0].error);
  const std::int64_t job = db.jobs()[0].id;
  EXPECT_EQ(db.points(job, "train/loss").size(), 8u) << "every metric line stored";
  const auto log = cluster.shared_root() / shared_root::job_log_path(std::to_string(job));
  const auto size = std::filesystem::file_size(log);
  EXPECT_LT(size, std::uintmax_t{kLimit} + 4096) << "the program wrote about 10 MB";
  EXPECT_GT(size, std::uintmax_t{kLimit} / 2);
  const auto tail = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(tail.find("the program wrote more than 200000 bytes to its log in this attempt"), std::string::npos) << tail;
}

TEST(ProgramJobs, ACancelledProgramThatIgnoresSigtermIsKilledAfterTheGrace) {
  client_on_python_path();
  Cluster cluster("program-cancel");
  cluster.start_server();
  cluster.start_worker();
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", program_sweep("s", 100000,
                                                                             ", --sleep, \"0.01\", --misbehave, ignore-term"))
                                       .string()})
                .exit_code,
            0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && stored_step(db, db.jobs()[0].id) >= 20; }, 60));
  const std::int64_t job = db.jobs()[0].id;
  const auto cancelled_at = std::chrono::steady_clock::now();
  ASSERT_EQ(cluster.cli({"cancel", "s"}).exit_code, 0);
  ASSERT_TRUE(wait_until([&] { return db.state(job) == "cancelled"; }, 30)) << db.state(job);
  // The worker's --cancel-grace-ms is 3 s here: SIGTERM, ignored, then SIGKILL.
  EXPECT_GE(std::chrono::steady_clock::now() - cancelled_at, std::chrono::seconds(2));
  EXPECT_FALSE(job_process_running(cluster, kProgram, job)) << "the program outlived its cancel";
}

// A data-parallel program of two ranks that meet where torchrun's variables say (ranked_sgd.py), as one job.
std::string ranked_sweep(const std::string& name, int steps, const std::string& extra_args, int max_attempts) {
  return command_sweep(kRankedProgram, name, steps, extra_args, "  world_size: 2\n", "[0]", max_attempts);
}

// world_size 2: the worker starts the program twice on two of its slots (gammalab-train ranks), with RANK,
// WORLD_SIZE and a free MASTER_PORT; rank 0's lines are the job's metrics, rank 1's go to the log behind
// "[rank 1]". Killed with SIGKILL mid-run, the job resumes on another worker to the curve the same launcher
// prints run by hand, bit for bit.
TEST(ProgramJobs, AJobOfTwoRanksRunsOnTwoSlotsAndResumesAfterSigkillToTheCurveOfAnUninterruptedRun) {
  constexpr int kSteps = 200;
  client_on_python_path();
  Cluster cluster("program-ranks");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/2000);
  const int first = cluster.start_worker(2);
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", ranked_sweep("s", kSteps, ", --sleep, \"0.02\"", 3)).string()})
                .exit_code,
            0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && stored_step(db, db.jobs()[0].id) >= 40; }, 120))
      << (db.jobs().empty() ? "" : db.jobs()[0].state + " " + db.jobs()[0].error);
  const std::int64_t job = db.jobs()[0].id;
  cluster.kill_worker(first, SIGKILL);
  cluster.wait_worker(first);
  ASSERT_LT(stored_step(db, job), kSteps) << "the program finished before the worker was killed; make it longer";
  ASSERT_TRUE(wait_until([&] { return !job_process_running(cluster, kRankedProgram, job); }, 30))
      << "a rank outlived its killed worker";
  cluster.start_worker(2);
  ASSERT_TRUE(wait_until([&] { return db.state(job) == "succeeded"; }, 180)) << db.state(job) << " " << db.jobs()[0].error;

  const auto stored = db.points(job, "train/loss");
  ASSERT_EQ(stored.size(), std::size_t{kSteps / 5}) << "one point per logged step: rank 0's, none twice, none missing";
  const auto config = cluster.shared_root() / shared_root::job_config_path(std::to_string(job));
  ChildProcess by_hand({kTrainer.string(), "ranks", "--world-size", "2", "--", "/usr/bin/python3",
                        kRankedProgram.string(), "--lr", "0.05", "--width", "8", "--seed", "0"},
                       {"GAMMALAB_CONFIG=" + config.string(),
                        "GAMMALAB_CHECKPOINT_DIR=" + (cluster.dir() / "by-hand-ckpt").string()},
                       (cluster.dir() / "by-hand.log").string());
  const auto expected = train_loss_curve(by_hand);
  ASSERT_EQ(by_hand.wait(), 0);
  ASSERT_EQ(expected.size(), stored.size());
  for (const auto& p : stored) {
    ASSERT_TRUE(expected.count(p.step)) << "step " << p.step;
    EXPECT_EQ(p.value, expected.at(p.step)) << "step " << p.step << ": bit for bit";
    EXPECT_GT(p.value, 0.0) << "step " << p.step << ": rank 1's hand-printed -1 is no metric";
  }
  EXPECT_GE(db.jobs()[0].attempt, 2) << "the killed attempt counted";
  const auto log = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(log.find(kRankedProgram.string() + " --lr 0.05 --width 8 --seed 0 --sleep 0.02 (as 2 ranks)"),
            std::string::npos) << log;
  EXPECT_NE(log.find("[rank 1] rank 1 of 2 joined at 127.0.0.1:"), std::string::npos) << log;
  // The killed attempt's lines are in the log too: each was written as it came.
  EXPECT_NE(log.find("[rank 1] {\"step\": 5, \"metrics\": {\"train/loss\": -1.0}}"), std::string::npos) << log;
  EXPECT_NE(log.find("{\"step\":40,\"metrics\":{\"train/loss\":"), std::string::npos) << log;
  EXPECT_NE(log.find("started ranks 0 to 1 of 2"), std::string::npos) << log;
}

// One rank crashing fails the job with its status, the other rank is stopped, and nothing of either is left.
TEST(ProgramJobs, ARankThatFailsStopsItsPeersAndFailsTheJobWithItsStatus) {
  client_on_python_path();
  Cluster cluster("program-rank-fails");
  cluster.start_server();
  cluster.start_worker(2);
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", ranked_sweep("s", 40, ", --fail-rank, \"1\", --fail-at, \"12\"", 1))
                                       .string()})
                .exit_code,
            0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && db.state(db.jobs()[0].id) == "failed"; }, 120))
      << (db.jobs().empty() ? "" : db.jobs()[0].state);
  const StoredJob job = db.jobs()[0];
  EXPECT_NE(job.error.find("status 3"), std::string::npos) << job.error;
  EXPECT_EQ(stored_step(db, job.id), 10) << "what rank 0 printed before its peer failed stays stored";
  EXPECT_FALSE(job_process_running(cluster, kRankedProgram, job.id)) << "a rank outlived its job";
  const auto log = cluster.cli({"logs", std::to_string(job.id)}).out;
  EXPECT_NE(log.find("[rank 1] rank 1: failing at step 12"), std::string::npos) << log;
  // Rank 0 ends at once too (its peer's socket closed), so either may be reaped first: both are logged.
  EXPECT_NE(log.find("rank 1 ended with status 3"), std::string::npos) << log;
  EXPECT_NE(log.find(": stopping the other ranks"), std::string::npos) << log;
}

// The GPUs a job's slots hold, read through NVML (its stand-in here: tests/nvml/stand_in_nvml.cpp, loaded by the
// worker as it loads the driver's library) and stored as the job's sys/gpu_util and sys/gpu_memory_bytes beside
// its CPU and memory: a job of two ranks on devices 1 and 2 (20% and 30% busy, 2 and 3 GiB in use).
TEST(ProgramJobs, TheGpusAJobHoldsAreReportedThroughNvml) {
  client_on_python_path();
  Cluster cluster("program-gpus");
  cluster.start_server();
  WorkerSpec spec;
  spec.slots = 2;
  spec.gpus = "1,2";
  spec.extra_args = {"--nvml-library", GAMMALAB_STAND_IN_NVML, "--system-metrics-s", "0.05"};
  cluster.start_worker(spec);
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", ranked_sweep("s", 60, ", --sleep, \"0.02\"", 1)).string()})
                .exit_code,
            0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && db.state(db.jobs()[0].id) == "succeeded"; }, 120))
      << (db.jobs().empty() ? "" : db.jobs()[0].state + " " + db.jobs()[0].error);
  const std::int64_t job = db.jobs()[0].id;
  const auto util = db.points(job, "sys/gpu_util");
  const auto memory = db.points(job, "sys/gpu_memory_bytes");
  ASSERT_FALSE(util.empty());
  ASSERT_EQ(util.size(), memory.size());
  ASSERT_EQ(util.size(), db.points(job, "sys/cpu_cores").size()) << "one sample, every figure";
  for (std::size_t i = 0; i < util.size(); ++i) {
    EXPECT_EQ(util[i].value, 25.0) << "the mean over devices 1 and 2";
    EXPECT_EQ(memory[i].value, 5.0 * (1 << 30)) << "their memory in use, summed";
    EXPECT_EQ(util[i].step, memory[i].step);
  }
  const auto log = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(log.find("slots 0,1, CUDA_VISIBLE_DEVICES=1,2)"), std::string::npos) << log;
}

}  // namespace
}  // namespace gammalab::testing
