// The study files shipped in configs/sweeps/ all validate, and their budgets are what they claim.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "core/sweep/sweep.h"
#include "core/model_preset.h"
#include "core/param_count.h"
#include "core/sweep/plan.h"
#include "sweep_test_support.h"

namespace gammalab {
namespace {

const std::filesystem::path kSweepDir = std::filesystem::path(GAMMALAB_SOURCE_DIR) / "configs" / "sweeps";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Sweep expand_file(const std::string& name) {
  const auto path = kSweepDir / name;
  return expand_sweep(read_file(path), path.string(), testing::source_tree_options());
}

TEST(SweepFiles, EveryShippedSweepValidates) {
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSweepDir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    try {
      const Sweep sweep = expand_sweep(read_file(entry.path()), entry.path().string(), testing::source_tree_options());
      EXPECT_FALSE(sweep.jobs.empty()) << entry.path();
      EXPECT_EQ(sweep.name, entry.path().stem().string()) << "name: should match the file name";
    } catch (const SweepError& e) {
      ADD_FAILURE() << e.what();
    }
  }
  EXPECT_GE(files, 6u);
}

TEST(SweepFiles, DenseLadderTrainsOnExactlyHundredTimesParams) {
  const Sweep sweep = expand_file("dense-ladder.yaml");
  const SweepPlan plan = plan_sweep(sweep);
  ASSERT_EQ(plan.rows.size(), 8u);
  std::set<std::string> presets;
  for (std::size_t i = 0; i < plan.rows.size(); ++i) {
    const PlanRow& row = plan.rows[i];
    EXPECT_GT(row.params, 0);
    EXPECT_EQ(row.tokens, 100 * row.params) << row.name;
    // The steps round the budget to whole batches: within half a batch of it.
    EXPECT_LE(std::abs(row.trained_tokens - row.tokens), sweep.jobs[i].config.batch_tokens / 2) << row.name;
    presets.insert(sweep.jobs[i].config.model.preset);
  }
  EXPECT_EQ(presets, (std::set<std::string>{"llama-0.12b", "llama-0.25b", "llama-0.5b", "llama-1b"}));
}

TEST(SweepFiles, MoeLadderBudgetsUseActivatedParams) {
  const Sweep sweep = expand_file("moe-ladder.yaml");
  ASSERT_EQ(sweep.jobs.size(), 8u);
  for (const auto& job : sweep.jobs) {
    const ParamCounts counts = count_params(job.config.model, ScaleSpec{});
    EXPECT_LT(counts.activated, counts.total) << job.name;
    EXPECT_EQ(job.tokens, 100 * counts.activated) << job.name;
  }
}

TEST(SweepFiles, AblationCoversEveryVariantOfTheSpec) {
  const Sweep sweep = expand_file("ablation-0.12b.yaml");
  std::set<std::string> variants;
  for (const auto& job : sweep.jobs) variants.insert(job.config.scale.variant);
  const auto names = variant_names();
  EXPECT_EQ(variants, std::set<std::string>(names.begin(), names.end()));
}

TEST(SweepFiles, DemoIsFiveSizesThreeVariantsTwoSeedsOfSmallCpuJobs) {
  const Sweep sweep = expand_file("demo-cpu.yaml");
  ASSERT_EQ(sweep.jobs.size(), 30u);
  std::int64_t total_tokens = 0;
  std::set<std::string> presets, variants;
  std::set<std::uint64_t> seeds;
  for (const auto& job : sweep.jobs) {
    presets.insert(job.config.model.preset);
    variants.insert(job.config.scale.variant);
    seeds.insert(job.config.seed);
    EXPECT_EQ(job.config.optim.lr, 2.4e-2) << "the stand-in the tune stage's pick replaces";
    EXPECT_EQ(job.config.device, DeviceKind::Cpu);
    EXPECT_EQ(job.config.threads, 1);
    EXPECT_EQ(job.config.model.seq_len, 128);
    EXPECT_EQ(job.config.batch_tokens, 4096);
    EXPECT_EQ(job.config.log_every, 10);
    EXPECT_EQ(job.config.data.train, "brown/train.bin");
    EXPECT_EQ(job.config.data.val, "brown/val.bin");
    EXPECT_EQ(job.tokens, job.config.steps * job.config.batch_tokens);  // whole steps
    EXPECT_GT(job.config.eval_every, 0);
    EXPECT_LE(job.config.eval_every, job.config.steps);
    total_tokens += job.tokens;
  }
  EXPECT_EQ(presets.size(), 5u) << "a law needs sizes, not runs";
  const SweepStages stages =
      expand_stages(read_file(kSweepDir / "demo-cpu.yaml"), "demo-cpu.yaml", testing::source_tree_options());
  ASSERT_TRUE(stages.tune) << "the demo tunes each variant's LR first";
  EXPECT_EQ(stages.tune->jobs.size(), 24u);
  EXPECT_EQ(stages.per, std::vector<std::string>{"scale.variant"});
  EXPECT_EQ(variants, (std::set<std::string>{"baseline", "none", "unified"}));
  EXPECT_EQ(seeds.size(), 2u);
  EXPECT_GT(total_tokens, 1'000'000);
  EXPECT_LT(total_tokens, 12'000'000);  // minutes on 2 CPU cores
}

}  // namespace
}  // namespace gammalab
