// Failures a long sweep meets on a cluster, with real processes: a worker killed mid-job, the coordinator
// killed mid-sweep, a user cancelling a running job, a worker drained. Nothing may be lost or run twice.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "core/metric.h"
#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"

namespace gammalab::testing {
namespace {

std::int64_t job_step(DbReader& db, std::int64_t job_id) {
  return db.count("SELECT step FROM jobs WHERE id = " + std::to_string(job_id));
}

// Is a process running whose command line mentions `needle` (e.g. the job's config path)?
bool process_running(const std::string& needle) {
  for (const ProcessInfo& p : processes()) {
    if (!p.zombie && p.cmdline.find(needle) != std::string::npos) return true;
  }
  return false;
}

void expect_complete_curve(DbReader& db, std::int64_t job_id, int steps, int log_every) {
  const auto loss = db.points(job_id, "train/loss");
  ASSERT_EQ(loss.size(), static_cast<std::size_t>(steps / log_every)) << "job " << job_id;
  for (std::size_t i = 0; i < loss.size(); ++i) {
    EXPECT_EQ(loss[i].step, static_cast<std::int64_t>((i + 1) * log_every)) << "job " << job_id;
    EXPECT_TRUE(std::isfinite(loss[i].value));
  }
}

TEST(Dispatch, KilledWorkerJobResumesExactlyOnAnotherWorker) {
  constexpr int kSteps = 200;
  Cluster cluster("kill-worker");
  cluster.prepare_data("d");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/2000);
  // The workers report the job's CPU and memory often (worker/process_usage.h): a resumed attempt's must never
  // go back below what the first stored, or its report would be refused and the attempt failed for a hole.
  WorkerSpec sampling;
  sampling.extra_args = {"--system-metrics-s", "0.1"};
  const int first = cluster.start_worker(sampling);
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", tiny_sweep_yaml("s", kSteps, "[baseline]", 20)).string()}).exit_code, 0);

  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && job_step(db, db.jobs()[0].id) >= 45; }, 300));
  const std::int64_t job = db.jobs()[0].id;
  cluster.kill_worker(first, SIGKILL);
  EXPECT_EQ(cluster.wait_worker(first), 128 + SIGKILL);
  ASSERT_LT(job_step(db, job), kSteps) << "the job finished before the worker was killed; make it longer";
  const auto config_needle = (std::filesystem::path("jobs") / std::to_string(job) / "config.json").string();
  EXPECT_TRUE(wait_until([&] { return !process_running(config_needle); }, 10)) << "the trainer outlived its worker";

  cluster.start_worker(sampling);
  ASSERT_TRUE(wait_until([&] { return db.state(job) == "succeeded"; }, 300)) << db.state(job);
  EXPECT_EQ(db.jobs()[0].attempt, 2) << "requeued once after the lease expired";
  // CPU and memory as ordinary metrics: at steps of the run, going forward across the two attempts, a
  // trainer's resident memory (tens of megabytes at least), a CPU rate that is never negative.
  const auto memory = db.points(job, "sys/memory_bytes");
  const auto cpu = db.points(job, "sys/cpu_cores");
  ASSERT_FALSE(memory.empty());
  ASSERT_EQ(cpu.size(), memory.size());
  for (std::size_t i = 0; i < memory.size(); ++i) {
    EXPECT_GT(memory[i].value, 10e6) << "step " << memory[i].step;
    EXPECT_GE(cpu[i].value, 0) << "step " << cpu[i].step;
    EXPECT_TRUE(std::isfinite(cpu[i].value)) << "step " << cpu[i].step;
    EXPECT_EQ(cpu[i].step, memory[i].step);
    EXPECT_LE(memory[i].step, kSteps);
    if (i > 0) {
      EXPECT_GT(memory[i].step, memory[i - 1].step);
    }
  }

  // Every logging step exactly once, and the values after the resume equal an uninterrupted run's.
  expect_complete_curve(db, job, kSteps, 5);
  const auto reference = standalone_curve(cluster, job);
  ASSERT_EQ(reference.size(), static_cast<std::size_t>(kSteps / 5));
  for (const auto& p : db.points(job, "train/loss")) {
    EXPECT_EQ(p.value, reference.at(p.step)) << "step " << p.step;
  }
  const std::string log = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(log.find("attempt 2"), std::string::npos) << log;
}

TEST(Dispatch, CoordinatorKilledAndRestartedLosesNothing) {
  constexpr int kSteps = 120;
  Cluster cluster("kill-coordinator");
  cluster.prepare_data("d");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/15000);
  cluster.start_worker();
  cluster.start_worker();
  ASSERT_EQ(
      cluster
          .cli({"submit", cluster.write_file("s.yaml", tiny_sweep_yaml("s", kSteps, "[baseline, none, hg]", 20)).string()})
          .exit_code,
      0);
  std::set<std::tuple<std::int64_t, std::int64_t>> before;
  {
    DbReader db(cluster.database());
    ASSERT_TRUE(wait_until([&] { return db.count("SELECT COUNT(*) FROM metrics") >= 20; }, 300));
    cluster.kill_server(SIGKILL);
    for (const auto& j : db.jobs()) {
      for (const auto& p : db.points(j.id, "train/loss")) before.insert({j.id, p.step});
    }
  }
  ASSERT_FALSE(before.empty());
  std::this_thread::sleep_for(std::chrono::seconds(1));
  cluster.start_server(200, 15000);  // same database file, same port: workers reconnect by themselves

  ASSERT_EQ(cluster.cli({"watch", "s"}).exit_code, 0);
  DbReader db(cluster.database());
  const auto jobs = db.jobs();
  ASSERT_EQ(jobs.size(), 3u);
  std::set<std::tuple<std::int64_t, std::int64_t>> after;
  for (const auto& j : jobs) {
    EXPECT_EQ(j.state, "succeeded") << j.name << ": " << j.error;
    expect_complete_curve(db, j.id, kSteps, 5);
    for (const auto& p : db.points(j.id, "train/loss")) after.insert({j.id, p.step});
  }
  for (const auto& point : before) EXPECT_TRUE(after.contains(point)) << "a point stored before the kill is gone";
}

// One run on one worker; the coordinator killed once it has points, down for twice the lease timeout (the
// trainer keeps going while its worker cannot reach anyone), then started `starts` times, each of them but the
// last killed 300 ms later. The healthy trainer must keep its attempt and its whole curve.
void expect_restarts_kill_no_healthy_trainer(const std::string& name, std::int64_t lease_timeout_ms, int starts) {
  constexpr int kSteps = 400;
  Cluster cluster(name);
  cluster.prepare_data("d");
  cluster.start_server(/*heartbeat_ms=*/200, lease_timeout_ms);
  cluster.start_worker();
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", tiny_sweep_yaml("s", kSteps, "[baseline]", 50)).string()}).exit_code, 0);
  {
    DbReader db(cluster.database());
    ASSERT_TRUE(wait_until([&] { return db.count("SELECT COUNT(*) FROM metrics") >= 4; }, 300));
  }
  cluster.kill_server(SIGKILL);
  std::this_thread::sleep_for(std::chrono::milliseconds(2 * lease_timeout_ms));
  for (int i = 0; i < starts; ++i) {
    if (i > 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      cluster.kill_server(SIGKILL);
    }
    cluster.start_server(200, lease_timeout_ms);
  }

  ASSERT_EQ(cluster.cli({"watch", "s"}).exit_code, 0);
  DbReader db(cluster.database());
  const auto jobs = db.jobs();
  ASSERT_EQ(jobs.size(), 1u);
  EXPECT_EQ(jobs[0].state, "succeeded") << jobs[0].error;
  EXPECT_EQ(jobs[0].attempt, 1) << "a restart used an attempt: the healthy trainer was killed";
  expect_complete_curve(db, jobs[0].id, kSteps, 5);
}

// A worker reconnects within seconds of a restart (up to about 6 s measured on 2 loaded cores).
TEST(Dispatch, CoordinatorDownForTwiceTheLeaseTimeoutKillsNoHealthyTrainer) {
  expect_restarts_kill_no_healthy_trainer("coordinator-down", /*lease_timeout_ms=*/15000, /*starts=*/1);
}

// A short lease (3 s) and two restarts back to back: the grace covers the worker's reconnection whatever the
// lease (server/lease_reaper.h). With a grace of one lease timeout, back-to-back restarts cost jobs an attempt.
TEST(Dispatch, TwoRestartsBackToBackWithAShortLeaseKillNoHealthyTrainer) {
  expect_restarts_kill_no_healthy_trainer("short-lease-restarts", /*lease_timeout_ms=*/3000, /*starts=*/2);
}

TEST(Dispatch, CancelStopsTheRunningTrainerWithinSeconds) {
  Cluster cluster("cancel");
  cluster.prepare_data("d");
  cluster.start_server();
  cluster.start_worker();
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", tiny_sweep_yaml("s", 1000000, "[baseline]", 0)).string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && job_step(db, db.jobs()[0].id) >= 5; }, 300));
  const std::int64_t job = db.jobs()[0].id;
  const auto config_needle = (std::filesystem::path("jobs") / std::to_string(job) / "config.json").string();
  ASSERT_TRUE(process_running(config_needle));

  const auto cancelled_at = std::chrono::steady_clock::now();
  ASSERT_EQ(cluster.cli({"cancel", "s"}).exit_code, 0);
  ASSERT_TRUE(wait_until([&] { return !process_running(config_needle); }, 10)) << "trainer still running after 10 s";
  EXPECT_LE(std::chrono::steady_clock::now() - cancelled_at, std::chrono::seconds(10));
  EXPECT_TRUE(wait_until([&] { return db.state(job) == "cancelled"; }, 10)) << db.state(job);
}

// SIGTERM to a worker mid-run: the trainer checkpoints, the job goes back to the queue with the attempt count it
// had before the lease and every point it stored, and another worker resumes it from the checkpoint to the same
// curve as an uninterrupted run.
TEST(Dispatch, DrainedWorkerHandsBackItsJobWhichResumesElsewhereExactly) {
  constexpr int kSteps = 300;
  Cluster cluster("drain");
  cluster.prepare_data("d");
  cluster.start_server();
  const int first = cluster.start_worker();
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", tiny_sweep_yaml("s", kSteps, "[baseline]", 20)).string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && job_step(db, db.jobs()[0].id) >= 30; }, 300));
  const std::int64_t job = db.jobs()[0].id;
  const auto before = db.points(job, "train/loss");
  cluster.kill_worker(first, SIGTERM);
  EXPECT_EQ(cluster.wait_worker(first), 0) << "a drained worker exits cleanly";
  ASSERT_LT(job_step(db, job), kSteps) << "the job finished before the drain; make it longer";
  EXPECT_EQ(db.state(job), "pending") << "handed back to the queue";
  EXPECT_EQ(db.jobs()[0].attempt, 0) << "the hand-back used no attempt: the count is as before the lease";
  const auto handed_back = db.points(job, "train/loss");
  ASSERT_GE(handed_back.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(handed_back[i].step, before[i].step);
    EXPECT_EQ(handed_back[i].value, before[i].value) << "step " << before[i].step;
  }

  cluster.start_worker();
  ASSERT_TRUE(wait_until([&] { return db.state(job) == "succeeded"; }, 300)) << db.state(job);
  EXPECT_EQ(db.jobs()[0].attempt, 1) << "one attempt in all: the drained one did not count";
  expect_complete_curve(db, job, kSteps, 5);
  const auto reference = standalone_curve(cluster, job);
  ASSERT_EQ(reference.size(), static_cast<std::size_t>(kSteps / 5));
  for (const auto& p : db.points(job, "train/loss")) {
    EXPECT_EQ(p.value, reference.at(p.step)) << "step " << p.step;
  }
  const std::string log = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(log.find("stopped at step"), std::string::npos) << log;
  EXPECT_NE(log.find("resumed from"), std::string::npos) << "the second worker resumed from the checkpoint: " << log;
}

// A run whose loss becomes non-finite fails, never succeeds, and its error says which loss went non-finite
// at which step; no non-finite point is stored.
TEST(Dispatch, ADivergingRunFailsNamingTheLossAndTheStep) {
  Cluster cluster("diverge");
  cluster.prepare_data("d");
  cluster.start_server();
  cluster.start_worker();
  const std::string yaml = R"(name: s
max_attempts: 1
base:
  model: {preset: tiny-0.03m}
  optim: {lr: 1.0e30, grad_clip: 0}
  schedule: {warmup_steps: 0}
  data: {train: d/train.bin, val: d/val.bin}
  batch_tokens: 1024
  steps: 50
  log_every: 1
  threads: 1
)";
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", yaml).string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && db.state(db.jobs()[0].id) == "failed"; }, 300))
      << (db.jobs().empty() ? "no job" : db.state(db.jobs()[0].id));
  const StoredJob job = db.jobs()[0];
  EXPECT_NE(job.error.find("the loss became non-finite"), std::string::npos) << job.error;
  EXPECT_NE(job.error.find("diverged at step "), std::string::npos) << job.error;
  EXPECT_NE(job.error.find("train/loss is "), std::string::npos) << job.error;
  for (const auto& point : db.points(job.id, "train/loss")) {
    EXPECT_FALSE(point.is_null) << "step " << point.step;
    EXPECT_TRUE(std::isfinite(point.value)) << "step " << point.step;
  }
  // The coordinator raised a diverged alert at that step from the worker's report of exit status 65, and the
  // CLI lists it (docs/alerts.md).
  const CliResult listed = cluster.cli({"--json", "alerts"});
  ASSERT_EQ(listed.exit_code, 0) << listed.out;
  const nlohmann::json alerts = nlohmann::json::parse(listed.out)["alerts"];
  ASSERT_EQ(alerts.size(), 1u) << listed.out;
  EXPECT_EQ(alerts[0]["rule"], "diverged");
  EXPECT_EQ(alerts[0]["job_id"], std::to_string(job.id));
  const std::string line = alerts[0]["message"];
  EXPECT_EQ(line.rfind("diverged at step ", 0), 0u) << line;
  EXPECT_NE(job.error.find(line), std::string::npos) << "the trainer's own line: " << job.error;
  EXPECT_EQ(alerts[0]["step"], line.substr(17, line.find(':') - 17));
}

// A data file no worker has: each worker that cannot open it is paused and the job tried on another without
// using an attempt (the worker's --data-dir may be what is wrong); once three workers failed it alike, the job
// is at fault and fails, though three attempts were allowed, with an error naming the missing file and the
// data directory.
TEST(Dispatch, AMissingDataFileFailsTheJobOnceThreeWorkersFailedItAlike) {
  Cluster cluster("missing-data");
  cluster.prepare_data("d");
  cluster.start_server();
  for (int i = 0; i < 3; ++i) cluster.start_worker();
  const std::string yaml = R"(name: s
max_attempts: 3
base:
  model: {preset: tiny-0.03m}
  data: {train: d/no-such-shard.bin, val: d/val.bin}
  batch_tokens: 1024
  steps: 5
  threads: 1
)";
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", yaml).string()}).exit_code, 0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && db.state(db.jobs()[0].id) == "failed"; }, 120))
      << (db.jobs().empty() ? "no job" : db.state(db.jobs()[0].id));
  const StoredJob job = db.jobs()[0];
  EXPECT_EQ(job.attempt, 1) << "the workers' faults used no attempt: " << job.error;
  EXPECT_NE(job.error.find("failed alike on 3 workers, so the job is at fault"), std::string::npos) << job.error;
  // The first two were paused while another worker could still try it; the third found the job at fault.
  EXPECT_EQ(db.count("SELECT COUNT(*) FROM workers WHERE paused_until_ms > 0"), 2);
  EXPECT_NE(job.error.find("data.train: token shard not found"), std::string::npos) << job.error;
  EXPECT_NE(job.error.find("no-such-shard.bin"), std::string::npos) << job.error;
  EXPECT_NE(job.error.find("in the data directory " + cluster.data_dir().string()), std::string::npos) << job.error;
  // `watch` on the finished sweep says a job failed with its own exit status.
  EXPECT_EQ(cluster.cli({"watch", "s"}).exit_code, 3);
  // --json after the command, and the state spelt as everywhere else.
  const auto listed = cluster.cli({"jobs", "s", "--json"});
  ASSERT_EQ(listed.exit_code, 0) << listed.out;
  const auto jobs = nlohmann::json::parse(listed.out);
  ASSERT_EQ(jobs.size(), 1u) << listed.out;
  EXPECT_EQ(jobs[0]["state"], "failed") << listed.out;
}

// One worker with a wrong --data-dir cannot fail the queue: a job it cannot open goes back to pending without
// using an attempt and the worker is paused; a good worker then runs every job, each within its one attempt.
TEST(Dispatch, AWorkerWithAWrongDataDirectoryFailsNoJob) {
  Cluster cluster("bad-worker");
  cluster.prepare_data("d");
  cluster.start_server();
  WorkerSpec bad;
  bad.data_dir = cluster.dir() / "empty-data";
  std::filesystem::create_directories(bad.data_dir);
  DbReader db(cluster.database());
  cluster.start_worker(bad);
  ASSERT_TRUE(wait_until([&] { return db.count("SELECT COUNT(*) FROM workers") == 1; }, 60));
  cluster.start_worker();
  ASSERT_TRUE(wait_until([&] { return db.count("SELECT COUNT(*) FROM workers") == 2; }, 60));
  // Four jobs for one good slot: the idle bad worker leases one while the good one trains.
  const std::string yaml = R"(name: s
max_attempts: 1
seeds: 4
base:
  model: {preset: tiny-0.03m}
  data: {train: d/train.bin, val: d/val.bin}
  batch_tokens: 1024
  steps: 40
  threads: 1
)";
  ASSERT_EQ(cluster.cli({"submit", cluster.write_file("s.yaml", yaml).string()}).exit_code, 0);
  ASSERT_TRUE(wait_until([&] { return db.count("SELECT COUNT(*) FROM jobs WHERE state = 'succeeded'") == 4; }, 300))
      << db.count("SELECT COUNT(*) FROM jobs WHERE state = 'failed'") << " failed";
  for (const StoredJob& job : db.jobs()) EXPECT_EQ(job.attempt, 1) << job.name;
  EXPECT_EQ(db.count("SELECT SUM(worker_faults) FROM jobs"), 1) << "the bad worker failed one job, then was paused";
  EXPECT_EQ(db.count("SELECT COUNT(*) FROM workers WHERE paused_until_ms > 0"), 1);
  EXPECT_EQ(cluster.cli({"watch", "s"}).exit_code, 0);
}

}  // namespace
}  // namespace gammalab::testing
