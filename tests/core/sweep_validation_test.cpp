// Validation: every kind of mistake is reported with file, line, column and the field's dot path, and all
// of them at once.
#include <gtest/gtest.h>

#include "core/sweep/sweep.h"
#include "sweep_test_support.h"

namespace gammalab {
namespace {

using testing::problems;

// The one diagnostic at `path` (fails the test if there is not exactly one).
SweepDiagnostic at_path(const std::vector<SweepDiagnostic>& all, const std::string& path) {
  std::vector<SweepDiagnostic> found;
  for (const auto& d : all) {
    if (d.path == path) found.push_back(d);
  }
  std::string listing;
  for (const auto& d : all) listing += d.to_string() + "\n";
  EXPECT_EQ(found.size(), 1u) << "diagnostics at " << path << " in:\n" << listing;
  return found.empty() ? SweepDiagnostic{} : found.front();
}

void expect_problem(const std::vector<SweepDiagnostic>& all, const std::string& path, int line, int column,
                    const std::string& message_part) {
  const SweepDiagnostic d = at_path(all, path);
  EXPECT_EQ(d.file, "test.yaml");
  EXPECT_EQ(d.line, line) << d.to_string();
  EXPECT_EQ(d.column, column) << d.to_string();
  EXPECT_NE(d.message.find(message_part), std::string::npos) << d.to_string();
}

TEST(SweepValidation, FormatsAsFileLineColumnPathMessage) {
  EXPECT_EQ((SweepDiagnostic{"a.yaml", 3, 7, "base.steps", "must be at least 1"}).to_string(),
            "a.yaml:3:7: base.steps: must be at least 1");
  EXPECT_EQ((SweepDiagnostic{"a.yaml", 0, 0, "", "bad"}).to_string(), "a.yaml: bad");
}

TEST(SweepValidation, YamlSyntaxError) {
  const auto all = problems("name: x\nbase: {model: [\n");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_GT(all[0].line, 0);
}

TEST(SweepValidation, UnknownKeysWithSuggestions) {
  const auto all = problems(R"(name: x
bsae: {}
base:
  optim: {lr: 1e-3, wieght_decay: 0.1}
  model: {preset: tiny-0.03m, d_modle: 64}
  stpes: 10
  frobnicate: 1
)");
  expect_problem(all, "bsae", 2, 1, "unknown key 'bsae' (did you mean 'base'?)");
  expect_problem(all, "base.optim.wieght_decay", 4, 21, "did you mean 'weight_decay'?");
  expect_problem(all, "base.model.d_modle", 5, 31, "did you mean 'd_model'?");
  expect_problem(all, "base.stpes", 6, 3, "did you mean 'steps'?");
  const SweepDiagnostic far = at_path(all, "base.frobnicate");
  EXPECT_EQ(far.message, "unknown key 'frobnicate'");
  EXPECT_EQ(all.size(), 5u);
}

TEST(SweepValidation, WrongTypes) {
  const auto all = problems(R"(base:
  steps: true
  model: {preset: tiny-0.03m, qk_norm: 3}
  data: {train: [a, b]}
  optim: adamw
  schedule: {warmup_steps: 2.5}
priority: high
max_attempts: 0
)");
  expect_problem(all, "base.steps", 2, 10, "expected an integer, got a boolean");
  expect_problem(all, "base.model.qk_norm", 3, 40, "expected a boolean, got an integer");
  expect_problem(all, "base.data.train", 4, 17, "expected a string, got a list");
  expect_problem(all, "base.optim", 5, 10, "expected a mapping, got a scalar");
  expect_problem(all, "base.schedule.warmup_steps", 6, 28, "expected an integer, got 2.5");
  expect_problem(all, "priority", 7, 11, "expected an integer");
  expect_problem(all, "max_attempts", 8, 15, "must be at least 1");
}

TEST(SweepValidation, OutOfRangeValuesAllReported) {
  const auto all = problems(R"(base:
  model: {preset: tiny-0.03m}
  optim: {lr: -1, beta2: 1.5}
  batch_tokens: 1000
)");
  expect_problem(all, "base.optim.lr", 3, 15, "must be > 0");
  expect_problem(all, "base.optim.beta2", 3, 26, "must be in [0, 1)");
  expect_problem(all, "base.batch_tokens", 4, 17, "multiple of model.seq_len (128)");
}

// optim.muon_lr is optional: unset, a job's config leaves it out (Muon takes optim.lr); set, it is checked
// like any number; an expression cannot read it while it is unset.
TEST(SweepValidation, OptionalMuonLr) {
  const Sweep unset = testing::expand("base: {model: {preset: tiny-0.03m}, optim: {name: muon, lr: 3e-3}}\n");
  ASSERT_EQ(unset.jobs.size(), 1u);
  EXPECT_FALSE(unset.jobs[0].config.optim.muon_lr.has_value());
  EXPECT_DOUBLE_EQ(unset.jobs[0].config.optim.muon_peak_lr(), 3e-3);

  const Sweep set = testing::expand("base: {model: {preset: tiny-0.03m}, optim: {name: muon, muon_lr: 2 * lr}}\n");
  ASSERT_EQ(set.jobs.size(), 1u);
  ASSERT_TRUE(set.jobs[0].config.optim.muon_lr.has_value());
  EXPECT_DOUBLE_EQ(*set.jobs[0].config.optim.muon_lr, 2e-3);
  EXPECT_NE(set.jobs[0].config_hash, unset.jobs[0].config_hash);

  const auto all = problems(R"(base:
  model: {preset: tiny-0.03m}
  optim: {muon_lr: -1, beta2: 1.5}
  schedule: {min_lr_ratio: 2}
)");
  expect_problem(all, "base.optim.muon_lr", 3, 20, "must be finite and > 0 (or unset: optim.lr), got -1");
  expect_problem(all, "base.optim.beta2", 3, 31, "must be in [0, 1)");
  expect_problem(all, "base.schedule.min_lr_ratio", 4, 28, "must be in [0, 1]");
  const auto reads_unset = problems("base: {model: {preset: tiny-0.03m}, schedule: {min_lr_ratio: muon_lr / 10}}\n");
  expect_problem(reads_unset, "base.schedule.min_lr_ratio", 1, 62, "'muon_lr' has no value: optim.muon_lr is optional");
}

TEST(SweepValidation, OutOfRangeFromAnAxisValueNamesTheJobs) {
  const auto all = problems(R"(base: {model: {preset: tiny-0.03m}}
axes:
  grid:
    optim.lr: [1e-3, -2e-3]
    scale.variant: [baseline, unified]
)");
  ASSERT_EQ(all.size(), 1u);
  expect_problem(all, "axes.grid.optim.lr[1]", 4, 22, "must be > 0");
}

TEST(SweepValidation, ProblemCausedByAPresetPointsAtThePreset) {
  const auto all = problems(R"(base:
  model: {preset: tiny-0.03m, d_model: 34}
)");
  expect_problem(all, "base.model.n_heads", 2, 19, "(from model preset 'tiny-0.03m')");
}

TEST(SweepValidation, UnknownPresetsWithSuggestions) {
  const auto all = problems(R"(base:
  model: {preset: llama-0.12B}
axes:
  grid:
    scale.variant: [baseline, unifed, something-else]
)");
  expect_problem(all, "base.model.preset", 2, 19, "unknown model preset 'llama-0.12B' (did you mean 'llama-0.12b'?)");
  expect_problem(all, "axes.grid.scale.variant[1]", 5, 31, "did you mean 'unified'?");
  expect_problem(all, "axes.grid.scale.variant[2]", 5, 39, "unknown variant 'something-else'");
}

TEST(SweepValidation, AxesThatExpandToNothingOrTooMuch) {
  const auto empty = problems(R"(base: {model: {preset: tiny-0.03m}}
axes:
  grid:
    optim.lr: []
)");
  expect_problem(empty, "axes.grid.optim.lr", 4, 15, "expand to nothing");

  SweepOptions options = testing::source_tree_options();
  options.max_jobs = 100;
  const auto too_many = problems(R"(base: {model: {preset: tiny-0.03m}}
axes:
  grid:
    optim.lr: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    optim.beta1: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]
seeds: 2
)",
                                 options);
  expect_problem(too_many, "axes", 2, 1, "expands to 200 jobs, more than the limit of 100");

  const auto no_seeds = problems("base: {model: {preset: tiny-0.03m}}\nseeds: []\n");
  expect_problem(no_seeds, "seeds", 2, 8, "expand to nothing");
}

TEST(SweepValidation, AxisShapes) {
  const auto all = problems(R"(base: {model: {preset: tiny-0.03m}}
axes:
  grid:
    optim.lrr: [1e-3]
    model: [a]
    optim.beta1: 0.9
    optim.beta2: [0.95, 0.95]
  zip:
    model.preset: [tiny-0.03m, tiny-0.05m]
    optim.lr: [1e-3]
  zap: {}
)");
  expect_problem(all, "axes.grid.optim.lrr", 4, 5, "unknown field 'optim.lrr' (did you mean 'optim.lr'?)");
  expect_problem(all, "axes.grid.model", 5, 5, "is a group of fields");
  expect_problem(all, "axes.grid.optim.beta1", 6, 18, "expected a list of values");
  expect_problem(all, "axes.grid.optim.beta2[1]", 7, 25, "duplicate value 0.95");
  expect_problem(all, "axes.zip.optim.lr", 10, 5, "zip lists must have equal length");
  expect_problem(all, "axes.zap", 11, 3, "did you mean 'zip'?");
}

TEST(SweepValidation, BudgetsThatDoNotDivideIntoWholeSteps) {
  const auto derived = problems(R"(base:
  model: {preset: tiny-0.03m}
  batch_tokens: 4096
  tokens: 20 * params
  steps: tokens / batch_tokens
)");
  expect_problem(derived, "base.steps", 5, 10, "the budget does not divide into whole steps");
  EXPECT_NE(at_path(derived, "base.steps").message.find("round("), std::string::npos);

  const auto implicit = problems(R"(base:
  model: {preset: tiny-0.03m}
  batch_tokens: 4096
  tokens: 1000000
)");
  expect_problem(implicit, "base.tokens", 4, 11, "tokens / batch_tokens = 1000000 / 4096 = 244.140625");

  const auto warmup = problems(R"(base:
  model: {preset: tiny-0.03m}
  steps: 250
  schedule: {warmup_steps: 0.01 * steps}
)");
  expect_problem(warmup, "base.schedule.warmup_steps", 4, 28, "0.01 * steps = 2.5");
}

TEST(SweepValidation, ExpressionErrorsPointIntoTheExpression) {
  const auto all = problems(R"(base:
  model: {preset: tiny-0.03m}
  tokens: 100 * parms
  optim: {lr: "0.1 / (d_model"}
  schedule: {warmup_steps: cbrt(steps)}
)");
  expect_problem(all, "base.tokens", 3, 17, "unknown name 'parms' (did you mean 'params'?)");
  expect_problem(all, "base.optim.lr", 4, 30, "expected ')'");
  expect_problem(all, "base.schedule.warmup_steps", 5, 28, "unknown function 'cbrt'");
}

TEST(SweepValidation, CircularDefinitions) {
  const auto all = problems(R"(base:
  model: {preset: tiny-0.03m}
  steps: 2 * eval_every
  eval_every: steps / 2
)");
  ASSERT_EQ(all.size(), 1u) << all[0].to_string();
  EXPECT_NE(all[0].message.find("circular definition"), std::string::npos) << all[0].to_string();
}

TEST(SweepValidation, SeedsBelongToTheTopLevel) {
  const auto all = problems("base: {seed: 3}\naxes: {grid: {seed: [1, 2]}}\nseeds: [1, -1, 1]\n");
  expect_problem(all, "base.seed", 1, 8, "seeds");
  expect_problem(all, "axes.grid.seed", 2, 15, "seeds");
  expect_problem(all, "seeds[1]", 3, 12, "non-negative");
  expect_problem(all, "seeds[2]", 3, 16, "duplicate seed 1");
}

TEST(SweepValidation, CollectsEveryProblemInFileOrder) {
  const auto all = problems(R"(name: 3
base:
  model: {preset: tiny-0.3m}
  optim: {lr: 0, nme: adamw}
axes:
  grid:
    scale.variant: [baseline, unifed]
seeds: 0
)");
  ASSERT_EQ(all.size(), 6u);
  for (std::size_t i = 1; i < all.size(); ++i) {
    EXPECT_LE(std::make_pair(all[i - 1].line, all[i - 1].column), std::make_pair(all[i].line, all[i].column));
  }
}

}  // namespace
}  // namespace gammalab
