// The end-to-end slice: submit a sweep with the CLI, two workers run real gammalab-train children, the
// coordinator stores every metric point; then check what was stored, straight from the SQLite file.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"

namespace gammalab::testing {
namespace {

constexpr int kSteps = 40;
constexpr int kLogEvery = 5;

std::string slice_sweep() {
  return R"(name: slice
base:
  model: {preset: tiny-0.03m}
  optim: {lr: 0.01}
  schedule: {kind: cosine, warmup_steps: 4}
  data: {train: slice/train.bin, val: slice/val.bin}
  batch_tokens: 1024
  steps: )" +
         std::to_string(kSteps) + R"(
  log_every: )" +
         std::to_string(kLogEvery) + R"(
  eval_every: 20
  threads: 1
axes:
  grid:
    scale.variant: [baseline, none]
)";
}

TEST(Slice, SubmitRunStoreAndList) {
  Cluster cluster("slice");
  cluster.prepare_data("slice");
  cluster.start_server();
  cluster.start_worker();
  cluster.start_worker();

  const auto sweep_file = cluster.write_file("slice.yaml", slice_sweep());
  CliResult submit = cluster.cli({"submit", sweep_file.string()});
  ASSERT_EQ(submit.exit_code, 0) << submit.out;
  EXPECT_NE(submit.out.find("2 job(s) queued"), std::string::npos) << submit.out;

  CliResult watch = cluster.cli({"watch", "slice"});
  EXPECT_EQ(watch.exit_code, 0) << watch.out;

  CliResult jobs = cluster.cli({"jobs", "slice"});
  ASSERT_EQ(jobs.exit_code, 0);
  EXPECT_NE(jobs.out.find("tiny-0.03m/baseline"), std::string::npos) << jobs.out;
  EXPECT_NE(jobs.out.find("succeeded"), std::string::npos) << jobs.out;

  DbReader db(cluster.database());
  const auto stored = db.jobs();
  ASSERT_EQ(stored.size(), 2u);
  for (const auto& job : stored) {
    EXPECT_EQ(job.state, "succeeded") << job.name << ": " << job.error;
    const auto loss = db.points(job.id, "train/loss");
    ASSERT_EQ(loss.size(), static_cast<std::size_t>(kSteps / kLogEvery)) << job.name;
    for (std::size_t i = 0; i < loss.size(); ++i) {
      EXPECT_EQ(loss[i].step, static_cast<std::int64_t>((i + 1) * kLogEvery)) << job.name << " point " << i;
      EXPECT_FALSE(loss[i].is_null) << job.name << " step " << loss[i].step;
      EXPECT_TRUE(std::isfinite(loss[i].value)) << job.name << " step " << loss[i].step;
      EXPECT_EQ(loss[i].tokens, loss[i].step * 1024) << job.name;
    }
    EXPECT_LT(loss.back().value, loss.front().value) << job.name;
    const auto val = db.points(job.id, "val/loss");
    ASSERT_FALSE(val.empty()) << job.name;
    EXPECT_EQ(val.back().step, kSteps);
  }
}

}  // namespace
}  // namespace gammalab::testing
