// Cooldown branches on a real cluster (docs/branches.md): a WSD run and its branch go through the coordinator,
// two workers and real trainers; the run's worker is killed with SIGKILL after the branch point, and the branch
// starts from the run's checkpoint while the run resumes elsewhere. Every stored curve must then equal, bit for
// bit, the same config trained from step 0 by gammalab-train alone, and nothing may be stored twice.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <map>

#include "core/metric.h"
#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"

namespace gammalab::testing {
namespace {

std::int64_t column(DbReader& db, const std::string& column, std::int64_t job_id) {
  return db.count("SELECT " + column + " FROM jobs WHERE id = " + std::to_string(job_id));
}

TEST(Branches, ARunKilledAfterItsBranchPointAndItsBranchEachEqualTheirStandaloneRuns) {
  constexpr int kSteps = 240;  // the run: decays over its last 48; the branch at half: steps 97-120 of 120
  Cluster cluster("branches");
  cluster.prepare_data("d");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/2000);
  const int first = cluster.start_worker();
  const std::string yaml = "name: b\nbase:\n"
                           "  model: {preset: tiny-0.03m}\n"
                           "  optim: {lr: 0.01}\n"
                           "  schedule: {kind: wsd, warmup_steps: 10, decay_steps: 48}\n"
                           "  data: {train: d/train.bin, val: d/val.bin}\n"
                           "  batch_tokens: 1024\n"
                           "  steps: " + std::to_string(kSteps) + "\n"
                           "  log_every: 5\n  eval_every: 60\n  ckpt_every: 20\n  threads: 1\n"
                           "branches: {fraction: [0.5], decay: 0.2}\n";
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

}  // namespace
}  // namespace gammalab::testing
