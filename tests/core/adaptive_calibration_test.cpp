// A study that plans itself, calibrated with a known answer through the real fit path: a simulated study starts
// small, and after every batch fit_runs() refits it exactly as `gammalab fit` would and decide_next()
// (core/scaling/adaptive_step.h) stops or picks the next move from the runs' own noise; the move's runs are then
// drawn from the truth. The rule stops on the intervals' width, never on where they lie, so the final headline
// must still cover the truth 90-98% of the time and exclude 1x in at most 7% of studies whose truth is 1x.
// `make calibrate` runs it with GAMMALAB_CALIBRATION_DRAWS=1000 (docs/scaling-laws.md, "Calibration").
#include <bit>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/scaling/adaptive_step.h"
#include "core/scaling/bootstrap.h"
#include "core/scaling/fit.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/verdict.h"
#include "tests/core/law_free_fit.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

// The calibration suite's convex baseline and noise: 0.006 shared by a pair (data order, initial weights) and
// 0.006 a run's own.
double curved_loss(double compute) { return 1.5 + 40.0 * std::pow(compute, -0.15); }
constexpr double kShared = 0.006, kOwn = 0.006;

// Both arms' runs of one size and seed, from a stream of their own: a move adds runs and changes no other.
void add_pair(std::vector<RunPoint>& runs, double compute, int seed, double multiplier, std::uint64_t study) {
  std::mt19937_64 rng(resample_seed(resample_seed(study, std::bit_cast<std::uint64_t>(compute)),
                                    static_cast<std::uint64_t>(seed)));
  std::normal_distribution<double> z(0.0, 1.0);
  const double n = std::sqrt(compute / 120.0);
  const double shared = kShared * z(rng);
  RunPoint base{n, 20 * n, compute, curved_loss(compute) + shared + kOwn * z(rng), "baseline", ""};
  RunPoint variant{n * 1.0001, 20 * n, compute, curved_loss(multiplier * compute) + shared + kOwn * z(rng),
                   "unified", ""};
  base.seed = variant.seed = static_cast<std::uint64_t>(seed);
  runs.push_back(base);
  runs.push_back(variant);
}

// The moves are valued at the study's planned effect (fixed before any data, deliberately not the truth), by a
// small simulation: enough to rank moves, cheap enough to run after every batch of every simulated study.
PowerDesign planning() {
  PowerDesign p;
  p.multiplier = 1.22;
  p.studies = 24;
  p.resamples = 40;
  p.seed = 3;
  return p;
}

struct Outcome {
  Estimate headline;
  std::string stop;
  int batches = 0;
  double flops = 0.0;  // every run's compute, the start's included
};

// One adaptive study: 4 sizes a decade apart with 2 paired seeds, then moves until decide_next stops.
Outcome adaptive_study(double multiplier, std::uint64_t study, const AdaptiveTarget& target) {
  std::vector<RunPoint> runs;
  std::map<double, int> seeds;
  for (double c : {1e10, 1e11, 1e12, 1e13}) {
    for (int s = 0; s < 2; ++s) add_pair(runs, c, s, multiplier, study);
    seeds[c] = 2;
  }
  Outcome out;
  for (const RunPoint& r : runs) out.flops += r.compute;
  double added = 0.0;
  for (;;) {
    const FitReport report = fit_runs(runs, test::law_free_fit(study));
    const AdaptiveDecision d = decide_next(report, runs, planning(), {2, false}, target, added, out.batches);
    if (!d.stop.empty()) {
      const HeadlineMultiplier h = headline_multiplier(report.comparisons.at(0));
      out.headline = h.estimate;
      if (!h.has_interval()) out.headline.lo = out.headline.hi = std::nan("");
      out.stop = d.stop;
      return out;
    }
    const Move& move = d.move->move;
    for (int k = 0; k < move.seeds; ++k) add_pair(runs, move.compute, seeds[move.compute]++, multiplier, study);
    added += move.flops;
    out.flops += move.flops;
    ++out.batches;
  }
}

struct AdaptiveTally {
  int draws = 0, bounded = 0, covers = 0, excludes_one = 0, reached = 0;
  std::map<std::string, int> stops;
  double batches = 0.0, flops = 0.0;
  double coverage() const { return bounded > 0 ? static_cast<double>(covers) / bounded : 0.0; }
};

AdaptiveTally calibrate_adaptive(const std::string& scenario, double truth, const AdaptiveTarget& target) {
  quiet_solver_logging();
  AdaptiveTally t;
  for (int draw = 0; draw < test::calibration_draws(); ++draw) {
    const Outcome o = adaptive_study(truth, 5000 + static_cast<std::uint64_t>(draw), target);
    ++t.draws;
    t.reached += o.stop == kStopTarget ? 1 : 0;
    ++t.stops[o.stop];
    t.batches += o.batches;
    t.flops += o.flops;
    if (!o.headline.bounded()) continue;
    ++t.bounded;
    t.covers += o.headline.lo <= truth && truth <= o.headline.hi ? 1 : 0;
    t.excludes_one += o.headline.lo > 1.0 || o.headline.hi < 1.0 ? 1 : 0;
  }
  std::printf("| %s | %.3g | %d | %d | %.1f%% | %.1f%% |\n", scenario.c_str(), truth, t.draws, t.bounded,
              100.0 * t.coverage(), 100.0 * t.excludes_one / std::max(1, t.draws));
  std::printf("  reached the width in %.1f%%, %.2f batches and %.3g FLOPs per study\n",
              100.0 * t.reached / std::max(1, t.draws), t.batches / std::max(1, t.draws),
              t.flops / std::max(1, t.draws));
  for (const auto& [stop, count] : t.stops) std::printf("  stopped by '%s': %d\n", stop.c_str(), count);
  return t;
}

AdaptiveTarget target() {
  AdaptiveTarget t;
  t.ratio = 1.12;
  t.max_batches = 12;
  return t;
}

TEST(AdaptiveCalibration, AStudyThatGrowsUntilItsIntervalIsNarrowCoversTheTruth) {
  const AdaptiveTally t = calibrate_adaptive("adaptive ladder from 4 sizes x 2 seeds to hi/lo 1.12", 1.3, target());
  EXPECT_GE(t.reached, 0.9 * t.draws) << "nearly every study reaches its width";
  EXPECT_GE(t.bounded, 0.95 * t.draws);
  EXPECT_GE(t.coverage(), 0.90);
  EXPECT_LE(t.coverage(), 0.98);
}

TEST(AdaptiveCalibration, WithNoEffectItRarelyExcludesOne) {
  const AdaptiveTally t = calibrate_adaptive("adaptive ladder from 4 sizes x 2 seeds to hi/lo 1.12", 1.0, target());
  EXPECT_LE(static_cast<double>(t.excludes_one) / t.draws, 0.07);
  EXPECT_GE(t.coverage(), 0.90);
}

// The comparison the adaptive rows are read against: the start design alone, analysed once (a target every
// study meets before any move), drawn by the same generator.
TEST(AdaptiveCalibration, TheStartDesignAloneIsTheFixedComparison) {
  AdaptiveTarget none;
  none.ratio = 1e6;
  const AdaptiveTally t = calibrate_adaptive("fixed ladder 4 sizes x 2 seeds (the adaptive start)", 1.3, none);
  EXPECT_EQ(t.batches, 0.0);
  EXPECT_GE(t.coverage(), 0.90);
  EXPECT_LE(t.coverage(), 0.98);
}

}  // namespace
}  // namespace gammalab
