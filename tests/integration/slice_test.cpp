// The end-to-end slice: submit a sweep with the CLI, two workers run real gammalab-train children, the
// coordinator stores every metric point; then check what was stored, straight from the SQLite file.
#include <gtest/gtest.h>

#include <regex>
#include <nlohmann/json.hpp>

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
  cluster.start_worker(1, "0,1");  // devices are handed to the trainer through CUDA_VISIBLE_DEVICES
  cluster.start_worker(1, "7");

  const auto sweep_file = cluster.write_file("slice.yaml", slice_sweep());
  CliResult submit = cluster.cli({"submit", sweep_file.string()});
  ASSERT_EQ(submit.exit_code, 0) << submit.out;
  EXPECT_NE(submit.out.find("2 job(s) queued"), std::string::npos) << submit.out;

  CliResult watch = cluster.cli({"watch", "slice"});
  EXPECT_EQ(watch.exit_code, 0) << watch.out;
  // Not a terminal: timestamped progress lines of the whole sweep (no line per job and state), then the final
  // table with each job succeeded.
  const std::regex progress("\\d\\d:\\d\\d:\\d\\d sweep \\d+ 'slice': \\d/2 done");
  EXPECT_TRUE(std::regex_search(watch.out, progress)) << watch.out;
  EXPECT_NE(watch.out.find("sweep 1 'slice': 2/2 done, finished; 2 succeeded"), std::string::npos) << watch.out;
  for (const char* name : {"tiny-0.03m/baseline", "tiny-0.03m/none"}) {
    const std::regex row(std::string(name) + "[^\\n]* succeeded ");
    EXPECT_TRUE(std::regex_search(watch.out, row)) << name << "\n" << watch.out;
  }

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
    const auto log = cluster.cli({"logs", std::to_string(job.id)}).out;
    EXPECT_TRUE(log.find("CUDA_VISIBLE_DEVICES=0,1)") != std::string::npos ||
                log.find("CUDA_VISIBLE_DEVICES=7)") != std::string::npos)
        << log;
  }

  // The rest of the CLI over the same data.
  const auto sweeps = nlohmann::json::parse(cluster.cli({"--json", "sweeps"}).out);
  ASSERT_EQ(sweeps.size(), 1u);
  EXPECT_EQ(sweeps[0]["job_counts"]["succeeded"], 2);
  EXPECT_TRUE(sweeps[0]["finished"].get<bool>());
  const auto shown = cluster.cli({"show", "slice/tiny-0.03m/none/adamw/cosine/s0"});
  EXPECT_EQ(shown.exit_code, 0);
  EXPECT_NE(shown.out.find("\"sharing\": \"none\""), std::string::npos) << shown.out;
  const auto workers = nlohmann::json::parse(cluster.cli({"--json", "workers"}).out);
  EXPECT_EQ(workers.size(), 2u);
  const auto exported = cluster.cli({"export", "slice", "--metrics", "train/loss"});
  ASSERT_EQ(exported.exit_code, 0);
  EXPECT_EQ(std::count(exported.out.begin(), exported.out.end(), '\n'), 1 + 2 * kSteps / kLogEvery) << exported.out;
  const auto missing = cluster.cli({"jobs", "no-such-sweep"});
  EXPECT_NE(missing.exit_code, 0);
  const auto retry = cluster.cli({"retry", std::to_string(stored[0].id)});
  EXPECT_NE(retry.exit_code, 0) << "a succeeded job cannot be retried";
}

}  // namespace
}  // namespace gammalab::testing
