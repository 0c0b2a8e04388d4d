// The study files shipped in configs/sweeps/ all validate, and their budgets are what they claim.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
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

// The paper's ablation runs every variant but the 2026 arms, which arms-2026.yaml runs beside the baseline, the
// QK-norm control and unified.
TEST(SweepFiles, AblationCoversEveryVariantOfTheSpec) {
  std::set<std::string> paper, rivals;
  for (const VariantPreset& preset : variant_presets()) {
    (preset.paper.starts_with("rival") ? rivals : paper).insert(preset.name);
  }
  EXPECT_EQ(rivals.size(), 8u);
  for (const auto& [file, expected] :
       {std::pair{"ablation-0.12b.yaml", paper}, std::pair{"arms-2026.yaml", [&] {
          std::set<std::string> arms = rivals;
          arms.insert({"baseline", "qknorm", "unified"});
          return arms;
        }()}}) {
    const Sweep sweep = expand_file(file);
    std::set<std::string> variants;
    for (const auto& job : sweep.jobs) variants.insert(job.config.scale.variant);
    EXPECT_EQ(variants, expected) << file;
  }
  std::set<std::string> gpu;
  for (const auto& job : expand_file("arms-2026-gpu.yaml").jobs) gpu.insert(job.config.scale.variant);
  std::set<std::string> cpu;
  for (const auto& job : expand_file("arms-2026.yaml").jobs) cpu.insert(job.config.scale.variant);
  EXPECT_EQ(gpu, cpu) << "the GPU file runs the same arms";
}

// The demo's design (issue: a regime closer to the paper's, controls, a fair LR): three widths at one depth of at
// least 2 layers, 20 tokens per parameter or more, unified and the baseline with both controls, 2 paired seeds,
// the held-out set the same for every job, and the LR tuned at every size and variant on a grid around a guess.
TEST(SweepFiles, DemoIsAWidthLadderWithControlsPairedSeedsAndAnLrTunedPerSize) {
  const Sweep sweep = expand_file("demo-cpu.yaml");
  ASSERT_EQ(sweep.jobs.size(), 24u);
  std::int64_t total_tokens = 0;
  std::set<std::string> presets, variants;
  std::set<std::int64_t> depths, widths;
  std::set<std::uint64_t> seeds;
  std::map<std::string, std::set<std::int64_t>> tokens_per_size;
  for (const auto& job : sweep.jobs) {
    presets.insert(job.config.model.preset);
    variants.insert(job.config.scale.variant);
    seeds.insert(job.config.seed);
    depths.insert(job.config.model.n_layers);
    widths.insert(job.config.model.d_model);
    tokens_per_size[job.config.model.preset].insert(job.tokens);
    EXPECT_DOUBLE_EQ(job.config.optim.lr, 1.0 / job.config.model.d_model) << "the guess the tune grid is centred on";
    EXPECT_EQ(job.config.model.qk_norm, job.config.scale.variant == "qknorm") << job.name;
    EXPECT_EQ(job.config.device, DeviceKind::Cpu);
    EXPECT_EQ(job.config.threads, 1);
    EXPECT_EQ(job.config.data.train, "brown/train.bin");
    EXPECT_EQ(job.config.eval_windows(), 128) << "one held-out set for every job";
    EXPECT_EQ(job.tokens, job.config.steps * job.config.batch_tokens);  // whole steps
    EXPECT_GE(double(job.tokens), 19.9 * double(job.params)) << job.name << ": at least 20 tokens per parameter";
    EXPECT_GE(job.config.steps / job.config.eval_every, 8) << "the gap against tokens is a curve";
    total_tokens += job.tokens;
  }
  EXPECT_EQ(presets.size(), 3u);
  EXPECT_EQ(depths, std::set<std::int64_t>{2}) << "size varies along width only, at two layers or more";
  EXPECT_EQ(widths.size(), 3u);
  for (const auto& [preset, tokens] : tokens_per_size) {
    EXPECT_EQ(tokens.size(), 1u) << preset << ": every arm of a size trains the same tokens, so its runs pair up";
  }
  EXPECT_EQ(variants, (std::set<std::string>{"baseline", "qknorm", "none", "unified"}));
  EXPECT_EQ(seeds.size(), 2u);
  const SweepStages stages =
      expand_stages(read_file(kSweepDir / "demo-cpu.yaml"), "demo-cpu.yaml", testing::source_tree_options());
  ASSERT_TRUE(stages.tune) << "the demo tunes the LR first";
  EXPECT_EQ(stages.tune->jobs.size(), 3u * 4u * 3u) << "every size and variant, three LRs around the guess";
  std::map<std::string, std::set<double>> lrs_per_size;
  for (const auto& job : stages.tune->jobs) {
    const double times_width = std::round(1e6 * job.config.optim.lr * double(job.config.model.d_model)) / 1e6;
    lrs_per_size[job.config.model.preset].insert(times_width);
  }
  for (const auto& [preset, lrs] : lrs_per_size) {
    EXPECT_EQ(lrs, (std::set<double>{0.5, 1.0, 2.0})) << preset << ": the grid moves with the width";
  }
  EXPECT_GT(total_tokens, 4'000'000);
  EXPECT_LT(total_tokens, 16'000'000);  // minutes on 2 CPU cores, with the tune stage's 1.5 times as much again
}

}  // namespace
}  // namespace gammalab
