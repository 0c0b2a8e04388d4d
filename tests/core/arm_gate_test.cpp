// Gates between stages (core/scaling/arm_gate.h), through the real fit path: a cheap stage of two small sizes
// judges three arms against the baseline (one better, one no different, one worse), the arms it promotes run the
// full ladder with fresh seeds, and the final verdict rests on those runs alone. Measured: how often each arm is
// promoted, and how often a promoted arm with no effect is called different, on the final stage's runs (the
// split) and on the gate's and the final stage's runs pooled (what the split avoids).
#include "core/scaling/arm_gate.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#include "core/scaling/bootstrap.h"
#include "core/scaling/fit.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/law_free_comparison.h"
#include "core/scaling/verdict.h"
#include "tests/core/law_free_fit.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

double curved_loss(double compute) { return 1.5 + 40.0 * std::pow(compute, -0.15); }

struct Arm {
  const char* name;
  double multiplier;
};
const std::vector<Arm> kArms = {{"baseline", 1.0}, {"good", 1.3}, {"null", 1.0}, {"bad", 0.7}};

// Every listed arm's run of one size and seed, sharing the seed's effect (data order, initial weights), from a
// stream of their own.
void add_runs(std::vector<RunPoint>& runs, const std::vector<Arm>& arms, double compute, int seed,
              std::uint64_t study) {
  std::mt19937_64 rng(resample_seed(resample_seed(study, std::bit_cast<std::uint64_t>(compute)),
                                    static_cast<std::uint64_t>(seed)));
  std::normal_distribution<double> z(0.0, 1.0);
  const double n = std::sqrt(compute / 120.0);
  const double shared = 0.006 * z(rng);
  for (const Arm& arm : arms) {
    RunPoint run{arm.multiplier == 1.0 && std::string(arm.name) == "baseline" ? n : n * 1.0001, 20 * n, compute,
                 curved_loss(arm.multiplier * compute) + shared + 0.006 * z(rng), arm.name, ""};
    run.seed = static_cast<std::uint64_t>(seed);
    runs.push_back(run);
  }
}

std::vector<RunPoint> stage(const std::vector<Arm>& arms, const std::vector<double>& sizes, int first_seed,
                            int seeds, std::uint64_t study) {
  std::vector<RunPoint> runs;
  for (double c : sizes) {
    for (int s = first_seed; s < first_seed + seeds; ++s) add_runs(runs, arms, c, s, study);
  }
  return runs;
}

const GateDecision& decision_of(const std::vector<GateDecision>& gate, const std::string& arm) {
  for (const GateDecision& d : gate) {
    if (d.arm == arm) return d;
  }
  throw std::out_of_range(arm);
}

TEST(ArmGate, APlausibleGateDropsOnlyAnArmWhoseIntervalLiesBelowTheThresholdAndSaysWhy) {
  const std::vector<Comparison> fit =
      compare_without_law(stage(kArms, {1e10, 1e11}, 0, 3, 1), "baseline", 200, 1, 0.95);
  const std::vector<GateDecision> plausible = gate_arms(fit, {1.0, GateRule::kPlausible, "baseline"});
  ASSERT_EQ(plausible.size(), 3u);
  EXPECT_TRUE(decision_of(plausible, "good").promoted);
  EXPECT_TRUE(decision_of(plausible, "null").promoted);
  const GateDecision& bad = decision_of(plausible, "bad");
  EXPECT_FALSE(bad.promoted);
  EXPECT_TRUE(bad.has_interval);
  EXPECT_LT(bad.evidence.hi, 1.0);
  EXPECT_NE(bad.why.find("lies below 1.00×"), std::string::npos) << bad.why;

  const std::vector<GateDecision> shown = gate_arms(fit, {1.0, GateRule::kShown, "baseline"});
  EXPECT_TRUE(decision_of(shown, "good").promoted) << decision_of(shown, "good").why;
  EXPECT_FALSE(decision_of(shown, "null").promoted) << "an arm no different is not shown better";
  EXPECT_NE(decision_of(shown, "null").why.find("does not clear 1.00×"), std::string::npos);
  EXPECT_TRUE(gate_arms(fit, {1.0, GateRule::kShown, "nobody"}).empty());
}

TEST(ArmGate, AGateThatCannotSeeDoesNotDrop) {
  const std::vector<Comparison> fit =
      compare_without_law(stage(kArms, {1e10, 1e11}, 0, 1, 2), "baseline", 200, 2, 0.95);
  for (const GateDecision& d : gate_arms(fit, {1.0, GateRule::kPlausible, "baseline"})) {
    EXPECT_FALSE(d.has_interval);
    EXPECT_TRUE(d.promoted) << d.arm;
    EXPECT_NE(d.why.find("no interval to judge"), std::string::npos);
  }
  for (const GateDecision& d : gate_arms(fit, {1.0, GateRule::kShown, "baseline"})) EXPECT_FALSE(d.promoted);
}

// The procedure over many simulated studies: the gate (2 sizes x 3 seeds), then the promoted arms and the
// baseline on 4 sizes x 2 fresh seeds.
TEST(ArmGate, PromotedArmsFinalIntervalsRestOnFreshRunsAndKeepTheirFalsePositiveRate) {
  quiet_solver_logging();
  // An arm goes on while it may still be 1.1x better: a null arm whose gate runs looked worse is dropped, so the
  // gate's runs of the null arms it keeps lean their way.
  constexpr double kThreshold = 1.03;
  const std::vector<double> gate_sizes = {1e10, 1e11}, ladder = {1e10, 1e11, 1e12, 1e13};
  int draws = 0, bad_dropped = 0, good_promoted = 0, null_promoted = 0, null_split_excludes = 0,
      null_pooled_excludes = 0, good_bounded = 0, good_covers = 0;
  for (int draw = 0; draw < test::calibration_draws(); ++draw) {
    const std::uint64_t study = 9000 + static_cast<std::uint64_t>(draw);
    const std::vector<RunPoint> gate_runs = stage(kArms, gate_sizes, 0, 3, study);
    const std::vector<GateDecision> gate = gate_arms(compare_without_law(gate_runs, "baseline", 200, study, 0.95),
                                                     {kThreshold, GateRule::kPlausible, "baseline"});
    std::vector<Arm> promoted = {kArms[0]};
    for (const Arm& arm : kArms) {
      if (std::string(arm.name) != "baseline" && decision_of(gate, arm.name).promoted) promoted.push_back(arm);
    }
    ++draws;
    bad_dropped += decision_of(gate, "bad").promoted ? 0 : 1;
    good_promoted += decision_of(gate, "good").promoted ? 1 : 0;
    const bool null_on = decision_of(gate, "null").promoted;
    null_promoted += null_on ? 1 : 0;
    // Fresh seeds for the full ladder: 100 on, none of the gate's.
    const std::vector<RunPoint> final_runs = stage(promoted, ladder, 100, 2, study);
    const FitReport split = fit_runs(final_runs, test::law_free_fit(study));
    std::vector<RunPoint> pooled = final_runs;
    for (const RunPoint& r : gate_runs) {
      for (const Arm& arm : promoted) {
        if (r.group == arm.name) pooled.push_back(r);
      }
    }
    const FitReport both = fit_runs(pooled, test::law_free_fit(study));
    const auto headline_of = [](const FitReport& fit, const std::string& arm) {
      for (const Comparison& c : fit.comparisons) {
        if (c.variant == arm && c.baseline == "baseline") return headline_multiplier(c);
      }
      return HeadlineMultiplier{};
    };
    const auto excludes_one = [](const HeadlineMultiplier& h) {
      return h.has_interval() && (h.estimate.lo > 1.0 || h.estimate.hi < 1.0);
    };
    if (null_on) {
      null_split_excludes += excludes_one(headline_of(split, "null")) ? 1 : 0;
      null_pooled_excludes += excludes_one(headline_of(both, "null")) ? 1 : 0;
    }
    if (const HeadlineMultiplier g = headline_of(split, "good"); g.has_interval()) {
      ++good_bounded;
      good_covers += g.estimate.lo <= 1.3 && 1.3 <= g.estimate.hi ? 1 : 0;
    }
  }
  const double split_fp = null_promoted > 0 ? double(null_split_excludes) / null_promoted : 0.0;
  const double pooled_fp = null_promoted > 0 ? double(null_pooled_excludes) / null_promoted : 0.0;
  std::printf("gate at %.2fx (plausible), %d studies: bad (0.7x) dropped %.1f%%, good (1.3x) promoted %.1f%%, null "
              "promoted %.1f%%; a promoted null arm called different: %.1f%% on fresh runs, %.1f%% pooled with the "
              "gate's; the good arm's final interval covers 1.3x in %.1f%%\n",
              kThreshold, draws, 100.0 * bad_dropped / draws, 100.0 * good_promoted / draws,
              100.0 * null_promoted / draws,
              100.0 * split_fp, 100.0 * pooled_fp, 100.0 * good_covers / std::max(1, good_bounded));
  EXPECT_GE(bad_dropped, 0.9 * draws) << "a planted bad arm is dropped";
  EXPECT_GE(good_promoted, 0.95 * draws) << "a good arm goes on";
  EXPECT_GE(null_promoted, 0.3 * draws) << "enough promoted null arms to judge their final verdicts";
  EXPECT_LE(split_fp, 0.07) << "the final verdict on fresh runs keeps its false-positive rate";
  EXPECT_GE(double(good_covers) / std::max(1, good_bounded), 0.90);
}

}  // namespace
}  // namespace gammalab
