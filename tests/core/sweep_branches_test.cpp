// Cooldown branches in a sweep file (`branches:`, docs/branches.md): which jobs they expand to, what each
// starts from, what `validate` refuses, and what `plan` charges for them.
#include <cmath>

#include <gtest/gtest.h>

#include "core/branch_point.h"
#include "core/file_util.h"
#include "core/sweep/config_hash.h"
#include "core/sweep/plan.h"
#include "core/sweep/tune.h"
#include "tests/core/sweep_test_support.h"

namespace gammalab {
namespace {

using testing::expand;
using testing::problems;

// A small WSD sweep: 2 variants, runs of 40 tokens per parameter, `branches` as given.
std::string wsd_sweep(const std::string& branches, const std::string& schedule = "wsd") {
  return R"(
name: b
base:
  model: {preset: tiny-2x16}
  schedule:
    kind: )" + schedule + R"(
    warmup_steps: 4
)" + (schedule == "wsd" ? "    decay_steps: max(1, round(0.2 * steps))\n" : "") + R"(
  batch_tokens: 2048
  tokens: round(40 * params / batch_tokens) * batch_tokens
axes:
  grid:
    scale.variant: [baseline, unified]
)" + branches;
}

std::string messages(const std::vector<SweepDiagnostic>& all) {
  std::string out;
  for (const auto& d : all) out += d.to_string() + "\n";
  return out;
}

TEST(SweepBranches, EachRunIsFollowedByItsBranchesWhichStartFromItsStablePhase) {
  const Sweep sweep = expand(wsd_sweep("branches: {tokens_per_param: [5, 10, 20]}\n"));
  ASSERT_EQ(sweep.jobs.size(), 8u);
  for (std::size_t r = 0; r < 8; r += 4) {
    const SweepJob& run = sweep.jobs[r];
    EXPECT_FALSE(run.parent.has_value());
    ASSERT_EQ(run.branch_points.size(), 3u);
    std::int64_t last_budget = 0;
    for (std::size_t b = 1; b <= 3; ++b) {
      const SweepJob& branch = sweep.jobs[r + b];
      ASSERT_EQ(branch.parent, r) << branch.name;
      EXPECT_EQ(branch.branch_step, run.branch_points[b - 1]);
      EXPECT_EQ(branch.name.rfind(run.name + "/D=", 0), 0u) << branch.name;
      // The branch is the standalone run of its budget: the run's config with its length and decay, a hash
      // of its own, and a start that the trainer accepts.
      JobConfig expected = run.config;
      expected.steps = branch.config.steps;
      expected.schedule.decay_steps = branch.config.steps - branch.branch_step;
      EXPECT_EQ(to_json(branch.config), to_json(expected));
      EXPECT_EQ(branch.config_hash, config_hash(expected));
      EXPECT_NE(branch.config_hash, run.config_hash);
      EXPECT_EQ(branch_point_mismatch(run.config, branch.config, branch.branch_step), "");
      // The decay is 20% of the branch's steps (rounded), and the budgets grow with the tokens per parameter.
      EXPECT_EQ(*branch.config.schedule.decay_steps, std::max<std::int64_t>(1, std::llround(0.2 * double(branch.config.steps))));
      EXPECT_GT(branch.tokens, last_budget);
      EXPECT_EQ(branch.tokens, branch.config.steps * branch.config.batch_tokens);
      last_budget = branch.tokens;
    }
    EXPECT_LT(last_budget, run.tokens);
  }
  // Fractions of the run's own tokens give the same budgets here (5, 10, 20 of 40 tokens per parameter).
  const Sweep by_fraction = expand(wsd_sweep("branches: {fraction: [0.125, 0.25, 0.5]}\n"));
  ASSERT_EQ(by_fraction.jobs.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_NEAR(double(by_fraction.jobs[i].tokens), double(sweep.jobs[i].tokens), 2048.0) << sweep.jobs[i].name;
  }
}

TEST(SweepBranches, WhatCannotBranchIsNamedWithTheRunAndTheBudget) {
  auto expect_problem = [](const std::string& yaml, const std::string& needle) {
    const std::string all = messages(problems(yaml));
    EXPECT_NE(all.find(needle), std::string::npos) << "wanted: " << needle << "\ngot:\n" << all;
  };
  expect_problem(wsd_sweep("branches: {tokens_per_param: [10]}\n", "cosine"),
                 "branches start from a WSD run's stable phase; this run's schedule.kind is cosine");
  expect_problem(wsd_sweep("branches: {tokens_per_param: [10, 40]}\n"), "is not inside the run's own");
  expect_problem(wsd_sweep("branches: {tokens_per_param: [10, 5]}\n"), "budgets must increase: 5 follows 10");
  expect_problem(wsd_sweep("branches: {fraction: [0.5, 1.0]}\n"), "a fraction of the run's own tokens must be below 1");
  expect_problem(wsd_sweep("branches: {fraction: [0.5], tokens: [1000]}\n"), "in one unit");
  expect_problem(wsd_sweep("branches: {decay: 0.2}\n"), "branches needs its budgets");
  expect_problem(wsd_sweep("branches: {fraction: [0.5], decay: 1.5}\n"), "expected a fraction of each branch's steps in (0, 1)");
  expect_problem(wsd_sweep("branches: {fraction: [0.5], decai: 0.1}\n"), "unknown key 'decai' (did you mean 'decay'?)");
  expect_problem(wsd_sweep("branches: {tokens: [2048, 2049]}\n"), "two budgets round to the same 2048 tokens (1 steps)");
  // A budget so short that the warmup does not fit before its decay.
  expect_problem(wsd_sweep("branches: {tokens: [8192]}\n"), "schedule.decay_steps: must be in [1, steps - warmup_steps]");
  // A branch point past the run's own decay start (its last 20%): the run's LR there is no longer the peak.
  // (With a decay of 20% for both, every fraction below 1 starts before it: 0.8 of 0.9 is 0.72.)
  expect_problem(wsd_sweep("branches: {fraction: [0.9], decay: 0.05}\n"), "learning rate differs at step");
  // Counted before anything is made: 2 runs x 1000 budgets is over a limit of 100 jobs.
  std::string many = "branches: {tokens: [";
  for (int i = 1; i <= 1000; ++i) many += (i > 1 ? ", " : "") + std::to_string(i * 2048);
  SweepOptions options = testing::source_tree_options();
  options.max_jobs = 100;
  const std::string all = messages(problems(wsd_sweep(many + "]}\n"), options));
  EXPECT_NE(all.find("2 runs with 1000 branches each are 2002 jobs, more than the limit of 100"), std::string::npos) << all;
}

// A tune stage in a branched sweep: the tune runs are plain runs (no branches), and the pick reaches every run
// and its branches alike, each branch still its run's continuation; a carry that would split them is refused.
TEST(SweepBranches, ATuneStagePicksForARunAndItsBranchesAlike) {
  const std::string yaml = wsd_sweep("branches: {tokens_per_param: [10, 20]}\n"
                                     "tune:\n  grid: {optim.lr: [0.01, 0.02, 0.04]}\n  seeds: [7]\n");
  const SweepStages stages = expand_stages(yaml, "b.yaml", testing::source_tree_options());
  ASSERT_TRUE(stages.tune);
  EXPECT_EQ(stages.tune->jobs.size(), 2u * 3u);
  for (const auto& job : stages.tune->jobs) EXPECT_FALSE(job.parent) << job.name;
  EXPECT_EQ(stages.main.jobs.size(), 2u * 3u) << "each run and its two branches";
  std::vector<TuneRun> runs;
  for (const auto& job : stages.tune->jobs) {
    const double best = job.config.scale.variant == "unified" ? 0.04 : 0.02;
    runs.push_back({job.config, 3.0 + std::abs(std::log2(job.config.optim.lr / best)), job.name});
  }
  SweepStages edge_ok = stages;
  edge_ok.allow_edge = true;  // unified's 0.04 is the grid's edge
  const Sweep main = apply_picks(edge_ok, pick_tuned(edge_ok, runs));
  ASSERT_EQ(main.jobs.size(), stages.main.jobs.size());
  for (std::size_t i = 0; i < main.jobs.size(); ++i) {
    const SweepJob& job = main.jobs[i];
    EXPECT_EQ(job.parent, stages.main.jobs[i].parent) << job.name;
    EXPECT_EQ(job.branch_step, stages.main.jobs[i].branch_step) << job.name;
    EXPECT_EQ(job.branch_points, stages.main.jobs[i].branch_points) << job.name;
    EXPECT_EQ(job.config.optim.lr, job.config.scale.variant == "unified" ? 0.04 : 0.02) << job.name;
    if (job.parent) {
      EXPECT_EQ(branch_point_mismatch(main.jobs[*job.parent].config, job.config, job.branch_step), "");
    }
  }
  // A carry that scales the LR with each job's own length gives a branch another LR than its run's.
  SweepStages split = edge_ok;
  split.carry["optim.lr"] = "tuned.optim.lr * 1000 / steps";
  try {
    apply_picks(split, pick_tuned(split, runs));
    ADD_FAILURE() << "a branch with another LR than its run's was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no longer starts from its run"), std::string::npos) << e.what();
  }
}

TEST(SweepBranches, PlanChargesABranchOnlyForTheStepsItTrains) {
  const Sweep sweep = expand(wsd_sweep("branches: {tokens_per_param: [5, 10, 20]}\n"));
  const SweepPlan plan = plan_sweep(sweep);
  EXPECT_EQ(plan.branches, 6u);
  double independent = 0;
  for (std::size_t i = 0; i < sweep.jobs.size(); ++i) {
    const SweepJob& job = sweep.jobs[i];
    const PlanRow& row = plan.rows[i];
    EXPECT_EQ(row.start_step, job.branch_step);
    EXPECT_EQ(row.trained_tokens, (job.config.steps - job.branch_step) * job.config.batch_tokens);
    independent += row.flops_per_token * double(job.config.steps * job.config.batch_tokens);
  }
  EXPECT_DOUBLE_EQ(plan.independent_flops, independent);
  // Runs of 40 with branches at 5, 10 and 20 (each a fifth): 40 + (5 + 10 + 20) / 5 = 47 against 40 + 35 = 75.
  EXPECT_NEAR(plan.total_flops / plan.independent_flops, 47.0 / 75.0, 0.02);
}

TEST(SweepBranches, TheShippedWsdLadderExpands) {
  const Sweep sweep = expand(read_file(std::string(GAMMALAB_SOURCE_DIR) + "/configs/sweeps/wsd-ladder.yaml"));
  std::size_t runs = 0, branches = 0;
  for (const auto& job : sweep.jobs) (job.parent ? branches : runs) += 1;
  EXPECT_EQ(runs, 18u);  // 3 sizes x 3 arms x 2 seeds
  EXPECT_EQ(branches, 54u);
}

}  // namespace
}  // namespace gammalab
