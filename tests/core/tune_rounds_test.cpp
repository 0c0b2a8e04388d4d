// A tune stage in rounds: an edge pick widens the grid (tune.extend) until the optimum is inside it or the
// extensions run out, an inside pick is refined to the geometric midpoints of its neighbours (tune.refine), and
// none of it depends on the order the runs came in.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "core/sweep/tune.h"
#include "core/sweep/tune_rounds.h"
#include "sweep_test_support.h"

namespace gammalab::testing {
namespace {

// Two arms, three tune seeds, a x2 grid of four LRs; the tune block's further keys are appended.
const std::string kTuned = R"(
name: rounds
base:
  model: {preset: tiny-0.03m}
  optim: {name: adamw, lr: 1e-3}
  steps: 20
axes:
  grid:
    scale.variant: [baseline, unified]
tune:
  grid:
    optim.lr: [1e-3, 2e-3, 4e-3, 8e-3]
  base: {steps: 5}
  seeds: [0, 1, 2]
)";

using Loss = std::function<double(const JobConfig&)>;

SweepStages stages_of(const std::string& tune_keys) {
  return expand_stages(kTuned + tune_keys, "rounds.yaml", source_tree_options());
}

// Runs the stage as the coordinator does: every run of a round ends, then the next round is asked for, until
// none comes. The number of rounds added is returned in `rounds`.
std::vector<TuneRun> run_stage(const SweepStages& stages, const Loss& loss, int& rounds) {
  std::vector<TuneRun> runs;
  for (const auto& job : stages.tune->jobs) runs.push_back({job.config, loss(job.config), job.name});
  for (rounds = 0; rounds < 20; ++rounds) {
    const Sweep round = next_tune_round(stages, runs);
    if (round.jobs.empty()) break;
    for (const auto& job : round.jobs) runs.push_back({job.config, loss(job.config), job.name});
  }
  return runs;
}

// A parabola in log2(lr) around each arm's optimum.
Loss optimum_at(double baseline, double unified) {
  return [=](const JobConfig& c) {
    const double x = std::log2(c.optim.lr / (c.scale.variant == "unified" ? unified : baseline));
    return 3.0 + 0.1 * x * x + 0.0001 * static_cast<double>(c.seed);
  };
}

double picked_lr(const TunePicks& picks, const std::string& variant) {
  for (const auto& g : picks.groups) {
    if (g.key.at("scale.variant") == variant && g.best >= 0) {
      return g.trials[static_cast<std::size_t>(g.best)].values.at("optim.lr").get<double>();
    }
  }
  return std::nan("");
}

TEST(TuneRounds, AnEdgePickWidensTheGridUntilTheOptimumIsInside) {
  const SweepStages stages = stages_of("  extend: 3\n");
  // baseline's optimum is two grid steps above the grid, unified's inside it.
  int rounds = 0;
  const auto runs = run_stage(stages, optimum_at(3.2e-2, 4e-3), rounds);
  EXPECT_EQ(rounds, 3) << "1.6e-2, then 3.2e-2 (still the edge), then 6.4e-2 shows 3.2e-2 is the optimum";
  EXPECT_EQ(runs.size(), 2u * 4u * 3u + 3u * 3u) << "only baseline's group widened, three seeds per value";
  TunePicks picks = pick_tuned(stages, runs);
  ASSERT_TRUE(picks.ok()) << picks.problems();
  EXPECT_DOUBLE_EQ(picked_lr(picks, "baseline"), 3.2e-2);
  EXPECT_DOUBLE_EQ(picked_lr(picks, "unified"), 4e-3);
  mark_tune_origins(stages, picks);
  for (const auto& g : picks.groups) {
    for (const auto& t : g.trials) {
      EXPECT_EQ(t.origin, t.values.at("optim.lr").get<double>() > 8e-3 ? "extended" : "") << t.values.dump();
    }
  }
  // The added runs are named as the runs they copy, with their own LR, and no two alike.
  std::set<std::string> names;
  for (const auto& r : runs) EXPECT_TRUE(names.insert(r.name).second) << r.name;
  EXPECT_TRUE(names.count("tune/tiny-0.03m/baseline/adamw/cosine/lr=0.032/s1")) << *names.rbegin();
}

TEST(TuneRounds, AnEdgePickBeyondTheExtensionsIsRefusedAndSaysSo) {
  const SweepStages stages = stages_of("  extend: 1\n");
  int rounds = 0;
  const auto runs = run_stage(stages, optimum_at(1.0, 4e-3), rounds);  // baseline: higher is always better
  EXPECT_EQ(rounds, 1);
  const TunePicks picks = pick_tuned(stages, runs);
  EXPECT_FALSE(picks.ok());
  EXPECT_NE(picks.problems().find("the best optim.lr (0.016) is the largest value of the grid after 1 value added "
                                  "beyond it (tune.extend)"),
            std::string::npos)
      << picks.problems();
}

TEST(TuneRounds, ARefinedPickFindsAnOptimumBetweenGridValues) {
  const SweepStages stages = stages_of("  refine: true\n");
  // Optima between grid points: 2e-3 * sqrt(2) and 4e-3 * sqrt(2).
  int rounds = 0;
  const auto runs = run_stage(stages, optimum_at(2e-3 * std::sqrt(2.0), 4e-3 * std::sqrt(2.0)), rounds);
  EXPECT_EQ(rounds, 1) << "one refinement round, whichever neighbour the coarse pick was";
  EXPECT_EQ(runs.size(), 2u * 4u * 3u + 2u * 2u * 3u) << "two midpoints per group, three seeds each";
  const TunePicks picks = pick_tuned(stages, runs);
  ASSERT_TRUE(picks.ok()) << picks.problems();
  EXPECT_NEAR(std::log2(picked_lr(picks, "baseline") / (2e-3 * std::sqrt(2.0))), 0.0, 1e-9);
  EXPECT_NEAR(std::log2(picked_lr(picks, "unified") / (4e-3 * std::sqrt(2.0))), 0.0, 1e-9);
  // Without refinement the pick is half a grid step off.
  std::vector<TuneRun> grid_only(runs.begin(), runs.begin() + 24);
  EXPECT_NEAR(std::abs(std::log2(picked_lr(pick_tuned(stages, grid_only), "baseline") / (2e-3 * std::sqrt(2.0)))),
              0.5, 1e-9);
}

TEST(TuneRounds, NoRoundsUnlessAsked) {
  const SweepStages stages = stages_of("  allow_edge: true\n");
  int rounds = 0;
  run_stage(stages, optimum_at(1.0, 4e-3), rounds);
  EXPECT_EQ(rounds, 0);
}

// A whole-number field refines to whole numbers, and a weight decay whose best is 0 is not extended below it.
TEST(TuneRounds, WarmupAndWeightDecayAreTunedPerArmLikeTheLr) {
  const std::string yaml = R"(
name: rounds
base:
  model: {preset: tiny-0.03m}
  optim: {name: adamw, lr: 1e-3}
  schedule: {kind: cosine, warmup_steps: 2}
  steps: 40
axes:
  grid:
    scale.variant: [baseline, unified]
tune:
  grid:
    schedule.warmup_steps: [2, 4, 8, 16]
    optim.weight_decay: [0.0, 0.05, 0.1]
  seeds: [0, 1]
  extend: 2
  refine: true
)";
  const SweepStages stages = expand_stages(yaml, "rounds.yaml", source_tree_options());
  // Best warmup 6 for baseline, 11 for unified; best weight decay 0 for baseline (an edge that cannot widen),
  // 0.1 for unified (an edge that widens to 0.15, worse, which puts 0.1 inside the grid).
  auto loss = [](const JobConfig& c) {
    const bool unified = c.scale.variant == "unified";
    const double w = std::log2(static_cast<double>(c.schedule.warmup_steps) / (unified ? 11.0 : 6.0));
    const double wd = c.optim.weight_decay - (unified ? 0.1 : 0.0);
    return 3.0 + 0.1 * w * w + 2.0 * wd * wd + 0.0001 * static_cast<double>(c.seed);
  };
  int rounds = 0;
  const auto runs = run_stage(stages, loss, rounds);
  std::set<std::int64_t> warmups;
  for (const auto& r : runs) {
    EXPECT_GE(r.config.optim.weight_decay, 0.0) << r.name;
    warmups.insert(r.config.schedule.warmup_steps);
  }
  EXPECT_TRUE(warmups.count(6) && warmups.count(11)) << "round(sqrt(4 * 8)) and round(sqrt(8 * 16))";
  SweepStages edge_ok = stages;
  edge_ok.allow_edge = true;  // baseline's weight decay of 0 cannot be widened
  const TunePicks picks = pick_tuned(edge_ok, runs);
  for (const auto& g : picks.groups) {
    const bool unified = g.key.at("scale.variant") == "unified";
    const auto& best = g.trials[static_cast<std::size_t>(g.best)].values;
    EXPECT_EQ(best.at("schedule.warmup_steps").get<std::int64_t>(), unified ? 11 : 6) << best.dump();
    EXPECT_NEAR(best.at("optim.weight_decay").get<double>(), unified ? 0.1 : 0.0, 1e-12) << best.dump();
  }
  EXPECT_FALSE(pick_tuned(stages, runs).ok()) << "without allow_edge the weight decay of 0 is an edge pick";
}

// The same runs in any order: the same next round, the same picks to the byte.
TEST(TuneRounds, TheOrderOfTheRunsChangesNothing) {
  const SweepStages stages = stages_of("  extend: 2\n  refine: true\n");
  std::mt19937_64 rng(11);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<TuneRun> runs;
  const Loss base = optimum_at(1.2e-2, 3e-3);
  for (const auto& job : stages.tune->jobs) runs.push_back({job.config, base(job.config) + noise(rng), job.name});
  const Sweep round = next_tune_round(stages, runs);
  ASSERT_FALSE(round.jobs.empty());
  for (const auto& job : round.jobs) runs.push_back({job.config, base(job.config) + noise(rng), job.name});
  const std::string picks = to_json(pick_tuned(stages, runs)).dump();
  const Sweep next = next_tune_round(stages, runs);
  for (int shuffle = 0; shuffle < 5; ++shuffle) {
    std::shuffle(runs.begin(), runs.end(), rng);
    EXPECT_EQ(to_json(pick_tuned(stages, runs)).dump(), picks);
    const Sweep again = next_tune_round(stages, runs);
    ASSERT_EQ(again.jobs.size(), next.jobs.size());
    for (std::size_t i = 0; i < next.jobs.size(); ++i) EXPECT_EQ(again.jobs[i].config_hash, next.jobs[i].config_hash);
  }
}

// The rounds count against the job limit at their most (2 groups x 3 runs per value x (2 x 2 extensions + 2
// midpoints) = 36 here), so that a file within the limit cannot grow past it later.
TEST(TuneRounds, TheJobLimitCountsTheRoundsAtTheirMost) {
  const std::string yaml = kTuned + "  extend: 2\n  refine: true\n";
  EXPECT_EQ(max_tune_round_jobs(expand_stages(yaml, "rounds.yaml", source_tree_options())), 36u);
  SweepOptions options = source_tree_options();
  options.max_jobs = 40;
  const auto found = problems(yaml, options);
  ASSERT_FALSE(found.empty());
  EXPECT_NE(found.front().message.find("expand to 26 jobs together, and their rounds may add 36, more than the limit "
                                       "of 40"),
            std::string::npos)
      << found.front().message;
}

TEST(TuneRounds, TheFileSaysHowFarTheGridMayWiden) {
  for (const std::string bad : {"  extend: 9\n", "  extend: -1\n", "  extend: two\n", "  refine: maybe\n"}) {
    const auto found = problems(kTuned + bad);
    ASSERT_FALSE(found.empty()) << bad;
    const std::string text = found.front().message;
    EXPECT_TRUE(text.find(bad.find("extend") != std::string::npos ? "from 0 to 4" : "true or false") !=
                std::string::npos)
        << text;
  }
}

}  // namespace
}  // namespace gammalab::testing
