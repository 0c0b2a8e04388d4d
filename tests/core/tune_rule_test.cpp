// One rule across sizes (tune.size_rule): the vertex of each size's tune curve, the line through them in log N,
// and the main stage at the rule's value; a simulated tune with a known LR law, where the rule lands closer to
// the truth than independent picks per size.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "core/param_count.h"
#include "core/sweep/tune.h"
#include "core/sweep/tune_rule.h"
#include "sweep_test_support.h"

namespace gammalab::testing {
namespace {

const std::string kRuled = R"(
name: ruled
base:
  model: {preset: tiny-2x32}
  optim: {name: adamw, lr: 1.0 / model.d_model}
  steps: 20
axes:
  grid:
    model.preset: [tiny-2x16, tiny-2x24, tiny-2x32, tiny-2x40, tiny-2x48]
    scale.variant: [baseline, unified]
tune:
  grid:
    optim.lr: [0.5 / model.d_model, 1.0 / model.d_model, 2.0 / model.d_model, 4.0 / model.d_model]
  base: {steps: 5}
  seeds: [100, 101]
  allow_edge: true
  size_rule: true
)";

SweepStages stages_of(const std::string& yaml) { return expand_stages(yaml, "ruled.yaml", source_tree_options()); }

double params_of(const JobConfig& c) {
  ModelSpec m = c.model;
  m.qk_norm = false;
  return static_cast<double>(count_params(m, ScaleSpec{}).activated);
}

// The known law: LR* = 0.04 (N / 30k)^-0.55 for baseline, twice that for unified.
double true_lr(const JobConfig& c) {
  return (c.scale.variant == "unified" ? 0.08 : 0.04) * std::pow(params_of(c) / 3e4, -0.55);
}

// Every tune run's loss a parabola in log2 LR around the known law's value, without noise.
std::vector<TuneRun> noiseless_runs(const SweepStages& stages) {
  std::vector<TuneRun> runs;
  for (const auto& job : stages.tune->jobs) {
    const double x = std::log2(job.config.optim.lr / true_lr(job.config));
    runs.push_back({job.config, 3.0 + 0.05 * x * x, job.name});
  }
  return runs;
}

TEST(TuneRule, TheVertexOfAParabolaThroughThreePoints) {
  auto y = [](double x) { return 2.0 + 0.7 * (x - 0.3) * (x - 0.3); };
  EXPECT_NEAR(parabola_vertex(-1.0, y(-1.0), 0.0, y(0.0), 1.0, y(1.0)), 0.3, 1e-12);
  EXPECT_NEAR(parabola_vertex(-1.0, y(-1.0), 0.5, y(0.5), 2.0, y(2.0)), 0.3, 1e-12) << "unequal spacing";
  EXPECT_EQ(parabola_vertex(0.0, 1.0, 1.0, 2.0, 2.0, 1.0), 1.0) << "curving down: the middle point";
  EXPECT_EQ(parabola_vertex(0.0, 1.0, 1.0, 1.0, 2.0, 1.0), 1.0) << "flat: the middle point";
  EXPECT_LE(parabola_vertex(0.0, 3.0, 1.0, 1.0, 2.0, 1.0 + 1e-9), 2.0) << "kept within the three points";
}

TEST(TuneRule, AKnownLawIsRecoveredAndTheMainStageRunsAtTheRulesValue) {
  const SweepStages stages = stages_of(kRuled);
  const TunePicks picks = pick_tuned(stages, noiseless_runs(stages));
  ASSERT_TRUE(picks.ok()) << picks.problems();
  ASSERT_EQ(picks.rules.size(), 2u) << "one rule per variant";
  for (const TuneRule& rule : picks.rules) {
    EXPECT_EQ(rule.sizes.size(), 5u);
    EXPECT_EQ(rule.df, 3);
    EXPECT_NEAR(rule.slope, -0.55, 1e-9) << "a noiseless parabola in log LR: every vertex is the truth";
    EXPECT_NEAR(rule.residual_sd, 0.0, 1e-9);
  }
  const Sweep main = apply_picks(stages, picks);
  for (const auto& job : main.jobs) {
    EXPECT_NEAR(std::log(job.config.optim.lr / true_lr(job.config)), 0.0, 1e-9) << job.name;
  }
  const TunePicks stored = tune_picks_from_json(to_json(picks));
  ASSERT_EQ(stored.rules.size(), 2u);
  EXPECT_EQ(to_json(stored.rules[1]), to_json(picks.rules[1]));
}

// With seed noise and a x2 grid, an independent pick per size is off by the grid's rounding and the winner's
// curse; the rule, fitted over sizes and seeds, lands closer to the true LR at each size on average.
// A rule gives every N a value: the stage may tune some sizes only (tune.axes), the others taking the rule
// between them, so that a study spends its tune budget on three sizes of five.
TEST(TuneRule, SizesTheStageDidNotTuneTakeTheRuleBetweenTheTunedOnes) {
  std::string yaml = kRuled;
  yaml.replace(yaml.find("  base: {steps: 5}"), 0, "  axes: {model.preset: [tiny-2x16, tiny-2x32, tiny-2x48]}\n");
  const SweepStages stages = stages_of(yaml);
  ASSERT_EQ(stages.tune->jobs.size(), 3u * 2u * 4u * 2u) << "three sizes, two variants, four LRs, two seeds";
  EXPECT_EQ(uncovered_main_job(stages).value_or(""), "");
  const TunePicks picks = pick_tuned(stages, noiseless_runs(stages));
  ASSERT_TRUE(picks.ok()) << picks.problems();
  ASSERT_EQ(picks.groups.size(), 6u);
  const Sweep main = apply_picks(stages, picks);
  ASSERT_EQ(main.jobs.size(), 10u);
  for (const auto& job : main.jobs) {
    EXPECT_NEAR(std::log(job.config.optim.lr / true_lr(job.config)), 0.0, 1e-9) << job.name << ": tuned or not";
  }
  // Without a rule, an untuned size has no pick to take: refused before anything runs.
  std::string independent = yaml;
  independent.replace(independent.find("  size_rule: true"), std::string("  size_rule: true").size(), "");
  independent += "  per: [scale.variant, model.preset]\n";
  try {
    stages_of(independent);
    ADD_FAILURE() << "an untuned size without a rule expanded";
  } catch (const SweepError& e) {
    EXPECT_NE(std::string(e.what()).find("has no tune runs with model.preset=tiny-2x24"), std::string::npos) << e.what();
  }
}

TEST(TuneRule, ARuleAcrossSizesIsCloserToTheTruthThanIndependentPicks) {
  const SweepStages stages = stages_of(kRuled);
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.01);
  double independent = 0.0, ruled = 0.0;
  int jobs = 0;
  constexpr int kTunes = 200;
  for (int i = 0; i < kTunes; ++i) {
    std::vector<TuneRun> runs;
    for (const auto& job : stages.tune->jobs) {
      const double x = std::log2(job.config.optim.lr / true_lr(job.config));
      runs.push_back({job.config, 3.0 + 0.03 * x * x + noise(rng), job.name});
    }
    const TunePicks picks = pick_tuned(stages, runs);
    ASSERT_TRUE(picks.ok()) << picks.problems();
    SweepStages per_size = stages;
    per_size.size_rule = false;
    const Sweep with_rule = apply_picks(stages, picks);
    const Sweep with_picks = apply_picks(per_size, pick_tuned(per_size, runs));
    for (std::size_t j = 0; j < with_rule.jobs.size(); ++j) {
      const JobConfig& c = with_rule.jobs[j].config;
      ruled += std::abs(std::log2(c.optim.lr / true_lr(c)));
      independent += std::abs(std::log2(with_picks.jobs[j].config.optim.lr / true_lr(c)));
      ++jobs;
    }
  }
  ruled /= jobs;
  independent /= jobs;
  EXPECT_LT(ruled, 0.6 * independent) << "mean |log2(LR / true LR)|: rule " << ruled << ", independent picks "
                                      << independent;
}

TEST(TuneRule, FewerThanThreeSizesGiveNoRuleAndSayWhy) {
  std::string yaml = kRuled;
  yaml.replace(yaml.find("[tiny-2x16, tiny-2x24, tiny-2x32, tiny-2x40, tiny-2x48]"),
               std::string("[tiny-2x16, tiny-2x24, tiny-2x32, tiny-2x40, tiny-2x48]").size(), "[tiny-2x16, tiny-2x24]");
  const SweepStages stages = stages_of(yaml);
  std::vector<TuneRun> runs;
  for (const auto& job : stages.tune->jobs) runs.push_back({job.config, 3.0 + job.config.optim.lr, job.name});
  const TunePicks picks = pick_tuned(stages, runs);
  EXPECT_FALSE(picks.ok());
  EXPECT_NE(picks.problems().find("tune.size_rule needs picks at 3 or more sizes; this family has 2"),
            std::string::npos)
      << picks.problems();
}

TEST(TuneRule, TheFileIsCheckedForARuleItCanFit) {
  const auto message = [](const std::string& yaml) {
    const auto found = problems(yaml);
    return found.empty() ? std::string() : found.front().message;
  };
  std::string two_fields = kRuled;
  two_fields.replace(two_fields.find("  base: {steps: 5}"), 0, "    optim.weight_decay: [0.0, 0.1]\n");
  EXPECT_NE(message(two_fields).find("fits one tuned field across sizes; tune.grid has 2 fields"), std::string::npos)
      << message(two_fields);
  std::string carried = kRuled + "  carry: {optim.lr: tuned.optim.lr}\n";
  EXPECT_NE(message(carried).find("cannot also be carried"), std::string::npos) << message(carried);
  std::string one_size = kRuled + "  per: [scale.variant]\n";
  EXPECT_NE(message(one_size).find("needs tune groups of several sizes"), std::string::npos) << message(one_size);
}

}  // namespace
}  // namespace gammalab::testing
