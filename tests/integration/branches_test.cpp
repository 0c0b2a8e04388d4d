// Cooldown branches on a real cluster (docs/branches.md): a WSD run and its branch go through the coordinator,
// two workers and real trainers; the run's worker is killed with SIGKILL after the branch point, and the branch
// starts from the run's checkpoint while the run resumes elsewhere. Every stored curve must then equal, bit for
// bit, the same config trained from step 0 by gammalab-train alone, and nothing may be stored twice.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "core/metric.h"
#include "core/shared_root.h"
#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"

namespace gammalab::testing {
namespace {

std::int64_t column(DbReader& db, const std::string& column, std::int64_t job_id) {
  return db.count("SELECT " + column + " FROM jobs WHERE id = " + std::to_string(job_id));
}

// One WSD run of tiny-0.03m on the test corpus for `steps`, decaying over its last 20%, checkpointed every 20
// steps, with cooldown branches at `fractions` (a YAML list) of its length, each decaying over its last 20%.
std::string wsd_sweep_yaml(const std::string& name, int steps, const std::string& fractions) {
  return "name: " + name + "\nbase:\n"
         "  model: {preset: tiny-0.03m}\n"
         "  optim: {lr: 0.01}\n"
         "  schedule: {kind: wsd, warmup_steps: 10, decay_steps: " + std::to_string(steps / 5) + "}\n"
         "  data: {train: d/train.bin, val: d/val.bin}\n"
         "  batch_tokens: 1024\n"
         "  steps: " + std::to_string(steps) + "\n"
         "  log_every: 5\n  eval_every: " + std::to_string(steps / 4) + "\n  ckpt_every: 20\n  threads: 1\n"
         "branches: {fraction: " + fractions + ", decay: 0.2}\n";
}

// The gammalab-train processes running this cluster's jobs: job id -> pid, read from /proc (a trainer's
// command line names its job's config under the shared root).
std::map<std::int64_t, int> running_trainers(Cluster& cluster) {
  const std::string jobs = (cluster.shared_root() / "jobs").string() + "/";
  std::map<std::int64_t, int> found;
  for (const ProcessInfo& p : processes()) {
    if (p.zombie || p.cmdline.find("gammalab-train run --config " + jobs) == std::string::npos) continue;
    const std::size_t at = p.cmdline.find(jobs) + jobs.size();
    found[std::stoll(p.cmdline.substr(at, p.cmdline.find('/', at) - at))] = p.pid;
  }
  return found;
}

TEST(Branches, ARunKilledAfterItsBranchPointAndItsBranchEachEqualTheirStandaloneRuns) {
  constexpr int kSteps = 240;  // the run: decays over its last 48; the branch at half: steps 97-120 of 120
  Cluster cluster("branches");
  cluster.prepare_data("d");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/2000);
  const int first = cluster.start_worker();
  const std::string yaml = wsd_sweep_yaml("b", kSteps, "[0.5]");
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("b.yaml", yaml).string()}).exit_code, 0);

  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return db.jobs().size() == 2; }, 30));
  const std::int64_t run = db.jobs()[0].id, branch = db.jobs()[1].id;
  EXPECT_EQ(column(db, "parent_id", branch), run);
  EXPECT_EQ(column(db, "branch_step", branch), 96);
  // Past the branch point (its checkpoint reported), the run's worker dies with the run half done.
  ASSERT_TRUE(wait_until([&] { return column(db, "step", run) >= 105; }, 300));
  cluster.kill_worker(first, SIGKILL);
  ASSERT_LT(column(db, "step", run), kSteps) << "the run finished before its worker was killed; make it longer";
  cluster.start_worker();
  cluster.start_worker();
  ASSERT_TRUE(wait_until([&] {
    const auto jobs = db.jobs();
    return jobs.size() == 2 && jobs[0].state == "succeeded" && jobs[1].state == "succeeded";
  }, 300)) << db.jobs()[0].state << " " << db.jobs()[1].state;
  EXPECT_EQ(db.jobs()[0].attempt, 2) << "the run was requeued once";

  // The branch's own curve: the steps after its branch point, each once.
  const auto branch_loss = db.points(branch, "train/loss");
  ASSERT_EQ(branch_loss.size(), 5u);  // 100, 105, ..., 120
  EXPECT_EQ(branch_loss.front().step, 100);
  EXPECT_EQ(branch_loss.back().step, 120);
  const std::string log = cluster.cli({"logs", std::to_string(branch)}).out;
  EXPECT_NE(log.find("started from the branch point"), std::string::npos) << log;
  EXPECT_NE(log.find("ckpt_000000096.safetensors"), std::string::npos) << log;

  // Both curves, bit for bit, as their configs train from step 0 alone.
  for (const std::int64_t job : {run, branch}) {
    const auto reference = standalone_curve(cluster, job);
    for (const auto& p : db.points(job, "train/loss")) {
      EXPECT_EQ(p.value, reference.at(p.step)) << "job " << job << " step " << p.step;
    }
  }
  EXPECT_EQ(db.points(run, "train/loss").size(), std::size_t{kSteps / 5});
  // The run kept its branch point past rotation; the stored marker is there once.
  EXPECT_TRUE(std::filesystem::exists(cluster.shared_root() / "jobs" / std::to_string(run) / "ckpt" /
                                      "ckpt_000000096.safetensors"));
  EXPECT_EQ(db.points(run, "branch_point").size(), 1u);
}

// Kills the trainer of `job` with SIGKILL as soon as `file` (one of the job's checkpoints) is in place: polled
// every 200 µs, with the job's trainer looked up beforehand, so it dies within a step or two of writing it.
// Runs on its own thread; `landed` says whether a kill reached a trainer.
class KillAtCheckpoint {
 public:
  KillAtCheckpoint(Cluster& cluster, std::int64_t job, std::filesystem::path file)
      : thread_([this, &cluster, job, file = std::move(file)] {
          const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
          int pid = -1;
          auto last_lookup = std::chrono::steady_clock::time_point{};
          while (!stop_ && std::chrono::steady_clock::now() < deadline) {
            if (std::filesystem::exists(file)) {
              // The attempt that wrote it: the trainer known, else the one running now.
              if (pid <= 0 || ::kill(pid, SIGKILL) != 0) {
                const auto trainers = running_trainers(cluster);
                pid = trainers.count(job) ? trainers.at(job) : -1;
                if (pid <= 0 || ::kill(pid, SIGKILL) != 0) return;
              }
              landed_ = true;
              return;
            }
            if (std::chrono::steady_clock::now() - last_lookup > std::chrono::milliseconds(20)) {
              const auto trainers = running_trainers(cluster);
              pid = trainers.count(job) ? trainers.at(job) : -1;
              last_lookup = std::chrono::steady_clock::now();
            }
            std::this_thread::sleep_for(std::chrono::microseconds(200));
          }
        }) {}
  ~KillAtCheckpoint() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  bool landed() {  // waits for the kill (or the watch's end)
    if (thread_.joinable()) thread_.join();
    return landed_;
  }

 private:
  std::atomic<bool> stop_{false}, landed_{false};
  std::thread thread_;
};

// Chaos on a run with two branches. The run's trainer is killed with SIGKILL as each branch point's checkpoint
// lands (before or after its announcement, whichever the race gives: the trainer test covers the gap between
// them exactly), each branch's trainer as its own first checkpoint lands, and then trainers of any job at
// random, and one worker with them. Every job must still end with the curve its config gives trained alone from
// step 0, each point stored once, each branch point announced once.
TEST(Branches, KillsOfARunAtItsBranchPointsAndOfItsBranchesTrainersLeaveEveryCurveAsTheStandaloneRuns) {
  constexpr int kSteps = 400;  // branches at 30% and 60%: 120 and 240 steps, leaving the run at 96 and 192
  Cluster cluster("branches-chaos");
  cluster.prepare_data("d");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/2000);
  std::vector<int> workers = {cluster.start_worker(), cluster.start_worker()};
  const std::string yaml = wsd_sweep_yaml("c", kSteps, "[0.3, 0.6]") + "max_attempts: 40\n";
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("c.yaml", yaml).string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return db.jobs().size() == 3; }, 30));
  const std::int64_t run = db.jobs()[0].id;
  const std::map<std::int64_t, std::int64_t> branch_steps = {{db.jobs()[1].id, 96}, {db.jobs()[2].id, 192}};
  for (const auto& [branch, step] : branch_steps) ASSERT_EQ(column(db, "branch_step", branch), step);
  auto all_succeeded = [&] {
    const auto jobs = db.jobs();
    return std::all_of(jobs.begin(), jobs.end(), [](const auto& j) { return j.state == "succeeded"; });
  };
  const auto checkpoint = [&](std::int64_t job, std::int64_t step) {
    return cluster.shared_root() / "jobs" / std::to_string(job) / "ckpt" / shared_root::checkpoint_file_name(step);
  };

  // The run at each branch point; each branch at its first own checkpoint (the first multiple of ckpt_every past
  // its branch point: 100 and 200, 20 and 40 steps before it ends).
  std::vector<std::unique_ptr<KillAtCheckpoint>> targeted;
  targeted.push_back(std::make_unique<KillAtCheckpoint>(cluster, run, checkpoint(run, 96)));
  targeted.push_back(std::make_unique<KillAtCheckpoint>(cluster, run, checkpoint(run, 192)));
  for (const auto& [branch, step] : branch_steps) {
    targeted.push_back(std::make_unique<KillAtCheckpoint>(cluster, branch, checkpoint(branch, (step / 20 + 1) * 20)));
  }
  for (auto& kill : targeted) EXPECT_TRUE(kill->landed());

  // Then at random (a fixed seed, so a failure can be replayed): trainers of any job, and a worker once.
  std::mt19937 rng(31);
  for (int round = 0; round < 6 && !all_succeeded(); ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100 + rng() % 500));
    if (round == 2) {
      cluster.kill_worker(workers.front(), SIGKILL);
      workers.erase(workers.begin());
      workers.push_back(cluster.start_worker());
      continue;
    }
    const auto trainers = running_trainers(cluster);
    if (trainers.empty()) continue;
    auto victim = trainers.begin();
    std::advance(victim, rng() % trainers.size());
    ::kill(victim->second, SIGKILL);
  }
  ASSERT_TRUE(wait_until(all_succeeded, 600)) << db.jobs()[0].state << " " << db.jobs()[1].state << " "
                                              << db.jobs()[2].state;
  EXPECT_GE(column(db, "attempt", run), 3) << "the run was killed at both branch points";
  for (const auto& [branch, step] : branch_steps) EXPECT_GE(column(db, "attempt", branch), 2) << "branch " << branch;

  // Every curve as its config trains alone from step 0, each point once.
  for (const auto& job : db.jobs()) {
    const auto reference = standalone_curve(cluster, job.id);
    const auto stored = db.points(job.id, "train/loss");
    const std::int64_t first = job.id == run ? 0 : branch_steps.at(job.id);
    const auto own = std::count_if(reference.begin(), reference.end(), [&](const auto& p) { return p.first > first; });
    EXPECT_EQ(static_cast<std::ptrdiff_t>(stored.size()), own) << "job " << job.id;
    for (const auto& p : stored) {
      EXPECT_GT(p.step, first) << "job " << job.id;
      EXPECT_EQ(p.value, reference.at(p.step)) << "job " << job.id << " step " << p.step;
    }
  }
  const auto announced = db.points(run, "branch_point");
  ASSERT_EQ(announced.size(), 2u);
  EXPECT_EQ(announced[0].step, 96);
  EXPECT_EQ(announced[1].step, 192);
}

}  // namespace
}  // namespace gammalab::testing
