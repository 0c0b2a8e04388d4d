// Expansion: job counts, order and names for grid, zip and seeds; derived fields; presets with overrides.
#include <set>

#include <gtest/gtest.h>

#include "core/model_preset.h"
#include "core/param_count.h"
#include "core/sweep/sweep.h"
#include "sweep_test_support.h"

namespace gammalab {
namespace {

using testing::expand;

std::vector<std::string> names_of(const Sweep& sweep) {
  std::vector<std::string> names;
  for (const auto& job : sweep.jobs) names.push_back(job.name);
  return names;
}

TEST(SweepExpand, NoAxesIsOneJobPerSeed) {
  const Sweep sweep = expand("name: one\nbase: {model: {preset: tiny-0.03m}}\n");
  ASSERT_EQ(sweep.jobs.size(), 1u);
  EXPECT_EQ(sweep.name, "one");
  EXPECT_EQ(sweep.jobs[0].name, "tiny-0.03m/baseline/adamw/cosine/s0");
  EXPECT_EQ(sweep.jobs[0].config.model.d_model, 32);
  EXPECT_EQ(sweep.jobs[0].config.steps, 100);  // JobConfig's default
}

TEST(SweepExpand, GridCrossesAxesInFileOrderWithSeedsInnermost) {
  const Sweep sweep = expand(R"(
name: grid
priority: 5
max_attempts: 2
base: {model: {preset: tiny-0.03m}}
axes:
  grid:
    scale.variant: [baseline, unified]
    optim.name: [adamw, muon]
seeds: [0, 7]
)");
  EXPECT_EQ(sweep.priority, 5);
  EXPECT_EQ(sweep.max_attempts, 2);
  EXPECT_EQ(names_of(sweep), (std::vector<std::string>{
                                 "tiny-0.03m/baseline/adamw/cosine/s0", "tiny-0.03m/baseline/adamw/cosine/s7",
                                 "tiny-0.03m/baseline/muon/cosine/s0", "tiny-0.03m/baseline/muon/cosine/s7",
                                 "tiny-0.03m/unified/adamw/cosine/s0", "tiny-0.03m/unified/adamw/cosine/s7",
                                 "tiny-0.03m/unified/muon/cosine/s0", "tiny-0.03m/unified/muon/cosine/s7"}));
  EXPECT_EQ(sweep.jobs[5].config.seed, 7u);
  EXPECT_EQ(sweep.jobs[5].config.scale.placement, Placement::DualNorm);  // unified's axes came from the preset
  EXPECT_EQ(sweep.jobs[5].config.optim.name, OptimizerKind::AdamW);
}

TEST(SweepExpand, ZipMovesAxesTogether) {
  const Sweep sweep = expand(R"(
base: {model: {preset: tiny-0.03m}}
axes:
  zip:
    model.preset: [tiny-0.03m, tiny-0.05m, tiny-0.1m]
    optim.lr: [3e-3, 2e-3, 1e-3]
)");
  ASSERT_EQ(sweep.jobs.size(), 3u);
  EXPECT_EQ(sweep.jobs[1].config.model.preset, "tiny-0.05m");
  EXPECT_DOUBLE_EQ(sweep.jobs[1].config.optim.lr, 2e-3);
  // lr moves with the preset, which the name shows already.
  EXPECT_EQ(sweep.jobs[1].name, "tiny-0.05m/baseline/adamw/cosine/s0");
}

TEST(SweepExpand, GridTimesZipTimesSeeds) {
  const Sweep sweep = expand(R"(
base: {model: {preset: tiny-0.03m}}
axes:
  grid:
    scale.variant: [baseline, none, unified]
  zip:
    optim.lr: [1e-3, 2e-3]
    optim.weight_decay: [0.1, 0.0]
seeds: 2
)");
  EXPECT_EQ(sweep.jobs.size(), 3u * 2u * 2u);
  EXPECT_EQ(sweep.jobs[0].name, "tiny-0.03m/baseline/adamw/cosine/lr=1e-3/weight_decay=0.1/s0");
  EXPECT_EQ(sweep.jobs[3].name, "tiny-0.03m/baseline/adamw/cosine/lr=2e-3/weight_decay=0.0/s1");
  EXPECT_DOUBLE_EQ(sweep.jobs[3].config.optim.weight_decay, 0.0);
}

TEST(SweepExpand, NamesAreUniqueAndAxesWithOneValueStayOutOfThem) {
  const Sweep sweep = expand(R"(
base: {model: {preset: tiny-0.03m}}
axes:
  grid:
    scale.placement: [before, after]
    optim.lr: [1e-3]
    model.moe.top_k: [1, 2]
)");
  std::set<std::string> names;
  for (const auto& job : sweep.jobs) names.insert(job.name);
  EXPECT_EQ(names.size(), 4u);
  EXPECT_TRUE(names.contains("tiny-0.03m/baseline/adamw/cosine/placement=after/top_k=2/s0"));
}

TEST(SweepExpand, DerivedTokensStepsAndWarmup) {
  const Sweep sweep = expand(R"(
base:
  model: {preset: llama-0.12b}
  batch_tokens: 524288
  tokens: 100 * params
  steps: round(tokens / batch_tokens)
  schedule: {warmup_steps: round(0.01 * steps)}
)");
  ASSERT_EQ(sweep.jobs.size(), 1u);
  const SweepJob& job = sweep.jobs[0];
  const auto preset = load_model_preset("llama-0.12b", std::string(GAMMALAB_SOURCE_DIR) + "/configs/models");
  const std::int64_t params = count_params(preset, ScaleSpec{}).activated;
  EXPECT_EQ(job.params, params);
  EXPECT_EQ(job.tokens, 100 * params);
  EXPECT_EQ(job.config.steps, std::llround(double(100 * params) / 524288.0));
  EXPECT_EQ(job.config.schedule.warmup_steps, std::llround(0.01 * double(job.config.steps)));
}

TEST(SweepExpand, TokensAloneSetStepsWhenTheyDivide) {
  const Sweep sweep = expand(R"(
base:
  model: {preset: tiny-0.03m}
  batch_tokens: 4096
  tokens: 25 * batch_tokens
)");
  EXPECT_EQ(sweep.jobs[0].config.steps, 25);
  EXPECT_EQ(sweep.jobs[0].tokens, 25 * 4096);
}

TEST(SweepExpand, TokensDefaultToStepsTimesBatch) {
  const Sweep sweep = expand("base: {model: {preset: tiny-0.03m}, steps: 30, batch_tokens: 256}\n");
  EXPECT_EQ(sweep.jobs[0].tokens, 30 * 256);
}

TEST(SweepExpand, MoeParamsAreActivatedParams) {
  const Sweep sweep = expand(R"(
base:
  model: {preset: llama-moe-0.5b}
  batch_tokens: 524288
  tokens: 100 * params
  steps: floor(tokens / batch_tokens)
)");
  const auto preset = load_model_preset("llama-moe-0.5b", std::string(GAMMALAB_SOURCE_DIR) + "/configs/models");
  const ParamCounts counts = count_params(preset, ScaleSpec{});
  ASSERT_LT(counts.activated, counts.total);
  EXPECT_EQ(sweep.jobs[0].params, counts.activated);
  EXPECT_EQ(sweep.jobs[0].tokens, 100 * counts.activated);
}

TEST(SweepExpand, ParamsIgnoreTheVariantSoVariantsShareABudget) {
  const Sweep sweep = expand(R"(
base: {model: {preset: tiny-0.1m}, batch_tokens: 128, tokens: 10 * params}
axes: {grid: {scale.variant: [none, baseline, unified, qknorm]}}
)");
  EXPECT_EQ(sweep.jobs[0].tokens, sweep.jobs[2].tokens);
  // The QK-norm control adds gains by its model switch; its budget is still the baseline's, so its runs pair.
  ASSERT_TRUE(sweep.jobs[3].config.model.qk_norm);
  EXPECT_EQ(sweep.jobs[3].params, sweep.jobs[1].params);
  EXPECT_EQ(sweep.jobs[3].tokens, sweep.jobs[1].tokens);
  EXPECT_GT(count_params(sweep.jobs[3].config.model, sweep.jobs[3].config.scale).activated,
            count_params(sweep.jobs[1].config.model, sweep.jobs[1].config.scale).activated);
  const Sweep variant = expand(R"(
base: {model: {preset: tiny-0.1m}, scale: {variant: unified}, batch_tokens: 128, steps: variant_params - params}
)");
  const auto& c = variant.jobs[0].config;
  EXPECT_EQ(c.steps, count_params(c.model, c.scale).activated - count_params(c.model, ScaleSpec{}).activated);
}

TEST(SweepExpand, PresetsCanBeOverridden) {
  const Sweep sweep = expand(R"(
base:
  model: {preset: tiny-0.03m, d_model: 64, n_layers: 3}
  scale: {variant: unified, dnp_per_head: true, decay: all}
)");
  const JobConfig& c = sweep.jobs[0].config;
  EXPECT_EQ(c.model.preset, "tiny-0.03m");
  EXPECT_EQ(c.model.d_model, 64);
  EXPECT_EQ(c.model.n_layers, 3);
  EXPECT_EQ(c.model.vocab_size, 256);  // from the preset
  EXPECT_EQ(c.scale.variant, "unified");
  EXPECT_EQ(c.scale.sharing, Sharing::Branch);
  EXPECT_EQ(c.scale.decay, ScaleDecay::All);
  EXPECT_TRUE(c.scale.dnp_per_head);
}

TEST(SweepExpand, ModelFieldsInExpressions) {
  const Sweep sweep = expand(R"(
base:
  model: {preset: tiny-0.03m, ffn_hidden: 3 * d_model}
  batch_tokens: 4 * seq_len
  optim: {lr: 0.1 / d_model}
  log_every: model.n_layers
)");
  const JobConfig& c = sweep.jobs[0].config;
  EXPECT_EQ(c.model.ffn_hidden, 96);
  EXPECT_EQ(c.batch_tokens, 512);
  EXPECT_DOUBLE_EQ(c.optim.lr, 0.1 / 32);
  EXPECT_EQ(c.log_every, 1);
}

TEST(SweepExpand, IsDeterministic) {
  const std::string yaml = R"(
base: {model: {preset: tiny-0.03m}}
axes: {grid: {model.preset: [tiny-0.03m, tiny-0.05m], scale.variant: [baseline, unified]}}
seeds: 3
)";
  const Sweep a = expand(yaml), b = expand(yaml);
  ASSERT_EQ(a.jobs.size(), 12u);
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].name, b.jobs[i].name);
    EXPECT_EQ(a.jobs[i].config_hash, b.jobs[i].config_hash);
  }
}

TEST(SweepExpand, NameDefaultsToTheFileStem) {
  const Sweep sweep = expand_sweep("base: {}\n", "configs/sweeps/my-study.yaml", testing::source_tree_options());
  EXPECT_EQ(sweep.name, "my-study");
  EXPECT_EQ(sweep.jobs[0].name, "custom/baseline/adamw/cosine/s0");
}

}  // namespace
}  // namespace gammalab
