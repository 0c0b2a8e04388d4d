// Jobs of several ranks on real workers (docs/distributed.md): a job with world_size N takes N slots of one
// worker, its trainer runs N Gloo ranks on the CPU, and the coordinator leases it only to a worker with N
// slots free; a job with nodes M runs N / M ranks on each of M workers, as one gang. Real coordinator, real
// worker daemons, real trainer children.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "core/metric.h"
#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"

namespace gammalab::testing {
namespace {

// The small sweep of tiny_sweep_yaml with `world_size` ranks (unset when 0) over `nodes` workers (unset when 0).
std::string sweep_yaml(const std::string& name, int steps, int world_size, std::optional<int> ckpt_every = {},
                       int nodes = 0) {
  std::string yaml = tiny_sweep_yaml(name, steps, "[baseline]", ckpt_every);
  const std::string anchor = "\nbase:\n";
  if (nodes > 0) yaml.insert(yaml.find(anchor) + anchor.size(), "  nodes: " + std::to_string(nodes) + "\n");
  if (world_size > 0) {
    yaml.insert(yaml.find(anchor) + anchor.size(), "  world_size: " + std::to_string(world_size) + "\n");
  }
  return yaml;
}

std::int64_t submit(Cluster& cluster, const std::string& name, const std::string& yaml) {
  const CliResult r = cluster.cli({"submit", cluster.write_file(name + ".yaml", yaml).string()});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  DbReader db(cluster.database());
  return db.count("SELECT j.id FROM jobs j JOIN sweeps s ON s.id = j.sweep_id WHERE s.name = '" + name + "'");
}

std::string job_text(DbReader& db, std::int64_t job, const std::string& column) {
  for (const auto& j : db.jobs()) {
    if (j.id != job) continue;
    if (column == "state") return j.state;
    if (column == "error") return j.error;
  }
  return "";
}

std::int64_t job_int(DbReader& db, std::int64_t job, const std::string& column) {
  return db.count("SELECT COALESCE(" + column + ", -1) FROM jobs WHERE id = " + std::to_string(job));
}

bool succeeded(DbReader& db, std::int64_t job) { return job_text(db, job, "state") == "succeeded"; }

// The live process whose environment holds `variable` (NAME=value) and whose command line mentions `needle`.
int find_process(const std::string& needle, const std::string& variable) {
  for (const ProcessInfo& p : processes()) {
    if (p.zombie || p.cmdline.find(needle) == std::string::npos) continue;
    if ((std::string(1, '\0') + p.environment).find(std::string(1, '\0') + variable + std::string(1, '\0')) != std::string::npos) return p.pid;
  }
  return -1;
}

// Float32 sums run in another order on 2 ranks: equal to a few units in the last place of a loss near 1-5.
void expect_same_curve(const std::vector<StoredPoint>& a, const std::vector<StoredPoint>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  ASSERT_FALSE(a.empty()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].step, b[i].step) << what;
    EXPECT_NEAR(a[i].value, b[i].value, 1e-4 * std::max(1.0, std::abs(b[i].value))) << what << " step " << a[i].step;
  }
}

// The train loss of `config` run by gammalab-train from start to end, outside the cluster: the curve a run never
// interrupted gives.
std::vector<StoredPoint> uninterrupted_train_loss(Cluster& cluster, const std::filesystem::path& config) {
  ChildProcess trainer({binary("worker/trainer/gammalab-train").string(), "run", "--config", config.string(),
                        "--data-dir", cluster.data_dir().string()},
                       {}, (cluster.dir() / "reference.log").string());
  std::vector<StoredPoint> losses;
  while (auto line = trainer.read_line()) {
    if (auto points = parse_metric_line(*line)) {
      for (const auto& p : *points) {
        if (p.name == "train/loss") losses.push_back({p.step, p.tokens, p.value, false});
      }
    }
  }
  EXPECT_EQ(trainer.wait(), 0) << "the reference run failed";
  return losses;
}

TEST(MultiSlot, TwoRankJobOnATwoSlotWorkerEndsAtTheOneRankLoss) {
  constexpr int kSteps = 30;
  Cluster cluster("two-ranks");
  cluster.prepare_data("d");
  cluster.start_server();
  const std::int64_t one = submit(cluster, "one", sweep_yaml("one", kSteps, 0));
  const std::int64_t two = submit(cluster, "two", sweep_yaml("two", kSteps, 2));
  cluster.start_worker(/*slots=*/2, /*gpus=*/"4,7");
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return succeeded(db, one) && succeeded(db, two); }, 300))
      << job_text(db, one, "state") << " " << job_text(db, two, "state") << ": " << job_text(db, two, "error");
  EXPECT_EQ(job_int(db, two, "slots_per_node"), 2);
  EXPECT_EQ(job_int(db, one, "slots_per_node"), 1);
  EXPECT_EQ(job_int(db, two, "attempt"), 1);

  expect_same_curve(db.points(two, "train/loss"), db.points(one, "train/loss"), "train/loss");
  expect_same_curve(db.points(two, "val/loss"), db.points(one, "val/loss"), "val/loss");
  const std::string log = cluster.cli({"logs", std::to_string(two)}).out;
  EXPECT_NE(log.find("slots 0,1, CUDA_VISIBLE_DEVICES=4,7"), std::string::npos)
      << "both slots and their devices went to the job: " << log;
  EXPECT_NE(log.find("started ranks 0 to 1 of 2"), std::string::npos) << log;
  const std::string table = cluster.cli({"jobs", "two"}).out;
  EXPECT_NE(table.find("SLOTS"), std::string::npos) << table;
}

TEST(MultiSlot, AOneSlotWorkerNeverLeasesATwoRankJobAndTheJobSaysWhy) {
  Cluster cluster("too-big");
  cluster.prepare_data("d");
  cluster.start_server();
  const std::int64_t two = submit(cluster, "two", sweep_yaml("two", 20, 2));
  {
    const CliResult r = cluster.cli({"jobs", "two"});
    EXPECT_NE(r.out.find("job " + std::to_string(two) + " waits: needs 2 slots of one worker; no worker is alive"),
              std::string::npos)
        << r.out;
  }
  // Submitted after the big job: the worker runs it, so it is not stuck behind a job it can never take.
  const std::int64_t one = submit(cluster, "one", sweep_yaml("one", 20, 0));
  cluster.start_worker(/*slots=*/1);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return succeeded(db, one); }, 300)) << job_text(db, one, "state");
  EXPECT_EQ(job_text(db, two, "state"), "pending");
  EXPECT_EQ(job_int(db, two, "attempt"), 0) << "never leased";

  const std::string reason = "needs 2 slots of one worker (its world_size); the largest live worker has 1 slot";
  const CliResult table = cluster.cli({"jobs", "two"});
  EXPECT_NE(table.out.find("job " + std::to_string(two) + " waits: " + reason), std::string::npos) << table.out;
  const CliResult show = cluster.cli({"--json", "show", std::to_string(two)});
  ASSERT_EQ(show.exit_code, 0) << show.out;
  const auto job = nlohmann::json::parse(show.out);
  EXPECT_EQ(job.at("slots_per_node"), 2);
  EXPECT_NE(job.at("pending_reason").get<std::string>().find(reason), std::string::npos) << show.out;
  const CliResult done = cluster.cli({"--json", "show", std::to_string(one)});
  EXPECT_EQ(nlohmann::json::parse(done.out).at("pending_reason"), "") << "only pending jobs get a reason";
}

TEST(MultiSlot, ATwoSlotWorkerBusyWithAOneSlotJobLeasesTheTwoRankJobOnlyAfterItEnds) {
  Cluster cluster("busy");
  cluster.prepare_data("d");
  cluster.start_server();
  cluster.start_worker(/*slots=*/2);
  const std::int64_t one = submit(cluster, "one", sweep_yaml("one", 150, 0));
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return job_int(db, one, "step") >= 5; }, 300)) << job_text(db, one, "state");
  const std::int64_t two = submit(cluster, "two", sweep_yaml("two", 20, 2));
  ASSERT_EQ(job_int(db, one, "finished_ms"), -1) << "the one-slot job ended before the two-slot job came; make it longer";
  {
    // With one of its two slots busy the worker waits for the other rather than leasing half of the job.
    const CliResult table = cluster.cli({"jobs", "two"});
    EXPECT_EQ(table.out.find("waits:"), std::string::npos) << "a 2-slot worker is alive: no reason\n" << table.out;
  }
  ASSERT_TRUE(wait_until([&] { return succeeded(db, one) && succeeded(db, two); }, 300))
      << job_text(db, one, "state") << " " << job_text(db, two, "state") << ": " << job_text(db, two, "error");
  EXPECT_GE(job_int(db, two, "started_ms"), job_int(db, one, "finished_ms"))
      << "the two-slot job was first leased only once the one-slot job had ended";
  EXPECT_EQ(job_int(db, two, "attempt"), 1);
}

// Two worker daemons of one slot each run one job of 2 ranks as a gang: node 0's worker hosts the rendezvous
// and relays the metrics, node 1's runs rank 1, and the curve is the 1-rank run's.
TEST(MultiNode, ATwoNodeJobOnTwoOneSlotWorkersEndsAtTheOneRankLoss) {
  constexpr int kSteps = 30;
  Cluster cluster("two-nodes");
  cluster.prepare_data("d");
  cluster.worker_flags = {"--advertise-address", "127.0.0.1"};
  cluster.start_server();
  const std::int64_t one = submit(cluster, "one", sweep_yaml("one", kSteps, 0));
  const std::int64_t gang = submit(cluster, "gang", sweep_yaml("gang", kSteps, 2, {}, /*nodes=*/2));
  {
    const CliResult r = cluster.cli({"jobs", "gang"});
    EXPECT_NE(r.out.find("job " + std::to_string(gang) + " waits: needs 2 workers with 1 slot each; no worker is alive"),
              std::string::npos)
        << r.out;
  }
  cluster.start_worker(1);
  cluster.start_worker(1);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return succeeded(db, one) && succeeded(db, gang); }, 300))
      << job_text(db, one, "state") << " " << job_text(db, gang, "state") << ": " << job_text(db, gang, "error");
  EXPECT_EQ(job_int(db, gang, "slots_per_node"), 1) << "one slot of each worker";
  EXPECT_EQ(job_int(db, gang, "nodes"), 2);
  EXPECT_EQ(job_int(db, gang, "attempt"), 1);
  expect_same_curve(db.points(gang, "train/loss"), db.points(one, "train/loss"), "train/loss");
  expect_same_curve(db.points(gang, "val/loss"), db.points(one, "val/loss"), "val/loss");

  const std::string log = cluster.cli({"logs", std::to_string(gang)}).out;
  EXPECT_NE(log.find("node 0 of 2"), std::string::npos) << log;
  EXPECT_NE(log.find("started ranks 0 to 0 of 2 (rendezvous on 127.0.0.1:"), std::string::npos) << log;
  EXPECT_NE(log.find("gammalab-worker: rendezvous at 127.0.0.1:"), std::string::npos) << log;
  std::ifstream node1_file(cluster.shared_root() / "jobs" / std::to_string(gang) / "log.node1.txt");
  const std::string node1((std::istreambuf_iterator<char>(node1_file)), std::istreambuf_iterator<char>());
  EXPECT_NE(node1.find("node 1 of 2"), std::string::npos) << node1;
  EXPECT_NE(node1.find("started ranks 1 to 1 of 2"), std::string::npos) << node1;
  EXPECT_EQ(db.count("SELECT COUNT(*) FROM gang_members"), 0) << "the gang's places went with its attempt";
  EXPECT_EQ(db.count("SELECT COUNT(*) FROM job_events WHERE kind = 'leased' AND detail LIKE 'gang of 2 workers%' "
                     "AND job_id = " + std::to_string(gang)),
            1)
      << "leased once, to both workers";
}

// kill -9 of the rank on node 1: the attempt fails (reported by node 1's worker, or by node 0's when its rank
// notices the lost peer first), which ends it for both nodes; the gang gathers again and the job resumes from
// rank 0's checkpoint to the uninterrupted curve.
TEST(MultiNode, AKilledRankOnAnotherNodeEndsTheAttemptAndTheJobResumes) {
  constexpr int kSteps = 150;
  Cluster cluster("kill-node");
  cluster.prepare_data("d");
  cluster.worker_flags = {"--advertise-address", "127.0.0.1"};
  cluster.start_server();
  cluster.start_worker(1);
  cluster.start_worker(1);
  const std::int64_t job = submit(cluster, "gang", sweep_yaml("gang", kSteps, 2, /*ckpt_every=*/20, /*nodes=*/2));
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return job_int(db, job, "step") >= 45; }, 300)) << job_text(db, job, "state");
  const auto config_needle = (std::filesystem::path("jobs") / std::to_string(job) / "config.node1.json").string();
  const int rank1 = find_process(config_needle, "RANK=1");
  ASSERT_GT(rank1, 0) << "rank 1 of the job is not running on node 1";
  ASSERT_EQ(::kill(rank1, SIGKILL), 0);
  ASSERT_LT(job_int(db, job, "step"), kSteps) << "the job finished before its rank was killed; make it longer";

  ASSERT_TRUE(wait_until([&] { return succeeded(db, job); }, 300)) << job_text(db, job, "state");
  EXPECT_EQ(job_int(db, job, "attempt"), 2) << "the killed attempt failed and the gang ran once more";
  // Which worker reports the failed attempt first is a race: node 1's (its rank was killed) or node 0's (its
  // rank lost its peer in a collective). Either way the attempt ends once, and is requeued once.
  EXPECT_EQ(db.count("SELECT COUNT(*) FROM job_events WHERE job_id = " + std::to_string(job) +
                     " AND kind = 'requeued' AND attempt = 1"),
            1)
      << "the killed attempt was requeued once";
  const std::string log = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(log.find("resumed from"), std::string::npos) << "the second attempt resumed from the checkpoint: " << log;

  const auto stored = db.points(job, "train/loss");
  ASSERT_EQ(stored.size(), static_cast<std::size_t>(kSteps / 5));
  const auto config = cluster.shared_root() / "jobs" / std::to_string(job) / "config.json";
  std::ifstream config_file(config);
  auto one_rank = nlohmann::json::parse(config_file);
  one_rank.erase("world_size");
  one_rank.erase("nodes");
  const auto reference_config = cluster.dir() / "reference.json";
  std::ofstream(reference_config) << one_rank.dump();
  expect_same_curve(stored, uninterrupted_train_loss(cluster, reference_config),
                    "resumed against an uninterrupted 1-rank run");
}

// kill -9 of one rank: the trainer stops the other, the worker reports the attempt failed, the job is leased
// again and resumes from its last checkpoint to the same curve as a run never interrupted.
TEST(MultiSlot, AKilledRankStopsTheJobWhichResumesFromItsCheckpoint) {
  constexpr int kSteps = 150;
  Cluster cluster("kill-rank");
  cluster.prepare_data("d");
  cluster.start_server();
  cluster.start_worker(/*slots=*/2);
  const std::int64_t job = submit(cluster, "two", sweep_yaml("two", kSteps, 2, /*ckpt_every=*/20));
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return job_int(db, job, "step") >= 45; }, 300)) << job_text(db, job, "state");
  const auto config_needle = (std::filesystem::path("jobs") / std::to_string(job) / "config.json").string();
  const int rank1 = find_process(config_needle, "RANK=1");
  ASSERT_GT(rank1, 0) << "rank 1 of the job is not running";
  ASSERT_EQ(::kill(rank1, SIGKILL), 0);
  ASSERT_LT(job_int(db, job, "step"), kSteps) << "the job finished before its rank was killed; make it longer";

  ASSERT_TRUE(wait_until([&] { return succeeded(db, job); }, 300)) << job_text(db, job, "state");
  EXPECT_EQ(job_int(db, job, "attempt"), 2) << "the killed attempt failed and the job ran once more";
  const std::string log = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(log.find("rank 1 ended with status"), std::string::npos) << log;
  EXPECT_NE(log.find("resumed from"), std::string::npos) << "the second attempt resumed from the checkpoint: " << log;

  // Every logging step once, equal to an uninterrupted 2-rank run of the same config.
  const auto stored = db.points(job, "train/loss");
  ASSERT_EQ(stored.size(), static_cast<std::size_t>(kSteps / 5));
  const auto config = cluster.shared_root() / "jobs" / std::to_string(job) / "config.json";
  expect_same_curve(stored, uninterrupted_train_loss(cluster, config), "resumed against uninterrupted");
}

// SIGTERM to the worker reaches every rank (the trainer's process group): the ranks agree on a step to stop
// after, rank 0 checkpoints, and the job goes back to the queue without using an attempt, to resume elsewhere.
TEST(MultiSlot, ADrainedWorkerHandsBackATwoRankJobWhichResumesOnAnotherWorker) {
  constexpr int kSteps = 150;
  Cluster cluster("drain-ranks");
  cluster.prepare_data("d");
  cluster.start_server();
  const int first = cluster.start_worker(/*slots=*/2);
  const std::int64_t job = submit(cluster, "two", sweep_yaml("two", kSteps, 2, /*ckpt_every=*/20));
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return job_int(db, job, "step") >= 30; }, 300)) << job_text(db, job, "state");
  cluster.kill_worker(first, SIGTERM);
  EXPECT_EQ(cluster.wait_worker(first), 0) << "a drained worker exits cleanly";
  ASSERT_LT(job_int(db, job, "step"), kSteps) << "the job finished before the drain; make it longer";
  EXPECT_EQ(job_text(db, job, "state"), "pending") << job_text(db, job, "error");
  EXPECT_EQ(job_int(db, job, "attempt"), 0) << "the hand-back used no attempt";

  cluster.start_worker(/*slots=*/2);
  ASSERT_TRUE(wait_until([&] { return succeeded(db, job); }, 300)) << job_text(db, job, "state");
  EXPECT_EQ(job_int(db, job, "attempt"), 1);
  const auto loss = db.points(job, "train/loss");
  ASSERT_EQ(loss.size(), static_cast<std::size_t>(kSteps / 5)) << "every logging step once";
  const std::string log = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(log.find("stopped at step"), std::string::npos) << log;
  EXPECT_NE(log.find("resumed from"), std::string::npos) << log;
}

}  // namespace
}  // namespace gammalab::testing
