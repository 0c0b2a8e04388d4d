// Calibration with a known answer, through the real fit path: simulated studies whose true multiplier is known
// are analysed by fit_runs() exactly as `gammalab fit` analyses a sweep, and the intervals the verdict prints
// must cover the truth 90–98% of the time at nominal 95%, and exclude 1× in at most 7% of studies when the
// truth is 1×. `make calibrate` runs every scenario with GAMMALAB_CALIBRATION_DRAWS=1000 and prints the table of
// docs/scaling-laws.md; `make test` runs them with the default draws.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/verdict.h"
#include "tests/core/law_free_fit.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {


struct Tally {
  std::string scenario;
  int draws = 0, bounded = 0, covers = 0, excludes_one = 0;
  double coverage() const { return bounded > 0 ? static_cast<double>(covers) / bounded : 0.0; }
  double false_positives() const { return draws > 0 ? static_cast<double>(excludes_one) / draws : 0.0; }
};

// One row of the table: the pooled m_local of `test::calibration_draws()` simulated studies against `truth`.
// The headline interval of the first comparison's verdict (core/scaling/verdict.h: m_local pooled, or at the
// largest size where its trend is resolved); NaN bounds where the verdict prints "too few seeds to bound".
Estimate headline(const FitReport& report) {
  const HeadlineMultiplier h = headline_multiplier(report.comparisons.at(0));
  Estimate e = h.estimate;
  if (!h.has_interval()) e.lo = e.hi = std::nan("");
  return e;
}

// The law's check beneath it: law c's shared-exponent constant.
Estimate law_constant(const FitReport& report) { return report.multipliers.at(0).constant.value(); }

Tally calibrate(const std::string& scenario, const std::function<std::vector<RunPoint>(std::uint64_t)>& study,
                double truth, const std::function<Estimate(const FitReport&)>& pick = headline,
                LawKind law = LawKind::n) {
  quiet_solver_logging();
  Tally t;
  t.scenario = scenario;
  for (int draw = 0; draw < test::calibration_draws(); ++draw) {
    const auto runs = study(1000 + static_cast<std::uint64_t>(draw));
    const Estimate m = pick(fit_runs(runs, test::law_free_fit(static_cast<std::uint64_t>(draw), law)));
    ++t.draws;
    if (!m.bounded()) continue;
    ++t.bounded;
    t.covers += m.lo <= truth && truth <= m.hi ? 1 : 0;
    t.excludes_one += m.lo > 1.0 || m.hi < 1.0 ? 1 : 0;
  }
  std::printf("| %s | %.3g | %d | %d | %.1f%% | %.1f%% |\n", scenario.c_str(), truth, t.draws, t.bounded,
              100.0 * t.coverage(), 100.0 * t.false_positives());
  return t;
}

test::BranchSurface surface(double multiplier, int seeds = 2) {
  test::BranchSurface design;
  design.multiplier = multiplier;
  design.seeds = seeds;
  return design;
}

// Coverage counts the intervals the verdict prints; a study whose trend with size came out resolved by chance
// quotes the largest size, which with two seeds it calls "too few seeds to bound" instead.
void expect_calibrated(const Tally& t) {
  EXPECT_GE(t.bounded, 0.9 * t.draws) << "nearly every study has an interval";
  EXPECT_GE(t.coverage(), 0.90);
  EXPECT_LE(t.coverage(), 0.98);
}

// A run's cooldown branches share its stable phase's noise: the family, not the (size, budget) cell, is the
// unit, and the pooled value has the families' degrees of freedom (3 sizes x 2 seeds: 3), not the cells' (12).
TEST(ScalingCalibration, ABranchSurfaceWhoseBranchesShareTheirRunsNoiseCoversTheTruth) {
  expect_calibrated(calibrate("WSD surface 3 sizes x 4 budgets, branches share their run's noise, 2 seeds",
                              [](std::uint64_t seed) { return test::branch_surface(surface(1.3), seed); }, 1.3));
}

TEST(ScalingCalibration, ABranchSurfaceWithNoEffectRarelyExcludesOne) {
  const Tally t = calibrate("WSD surface 3 sizes x 4 budgets, branches share their run's noise, 2 seeds",
                            [](std::uint64_t seed) { return test::branch_surface(surface(1.0), seed); }, 1.0);
  EXPECT_LE(t.false_positives(), 0.07);
}

TEST(ScalingCalibration, ABranchSurfaceWithThreeSeedsCoversTheTruth) {
  expect_calibrated(calibrate("WSD surface 3 sizes x 4 budgets, branches share their run's noise, 3 seeds",
                              [](std::uint64_t seed) { return test::branch_surface(surface(1.3, 3), seed); }, 1.3));
}

// The token multiplier at fixed N (core/scaling/token_multiplier.h), as the CLI prints it over sizes (no interval
// below two degrees of freedom), on the same surface design with a variant that needs m times fewer tokens at
// every size (Chinchilla's form, convex in ln D). Its truth is m itself, read at the top budget along a tangent.
Estimate token_multiplier(const FitReport& report) {
  const Comparison& c = report.comparisons.at(0);
  Estimate e = c.tokens;
  if (c.tokens_degrees_of_freedom < kFewestDegreesOfFreedom) e.lo = e.hi = std::nan("");
  return e;
}

Tally calibrate_tokens(double multiplier) {
  test::BranchSurface design = surface(multiplier);
  design.law = test::BranchSurface::token_law;
  return calibrate("token multiplier at fixed N, WSD surface 3 sizes x 4 budgets, branches share their run's noise, 2 seeds",
                   [design](std::uint64_t seed) { return test::branch_surface(design, seed); }, multiplier,
                   token_multiplier);
}

TEST(ScalingCalibration, TheTokenMultiplierAtFixedSizeCoversTheTruthAndWithNoEffectRarelyExcludesOne) {
  expect_calibrated(calibrate_tokens(1.3));
  EXPECT_LE(calibrate_tokens(1.0).false_positives(), 0.07);
}

// A convex baseline, L = 1.5 + 40·C^-0.15, five sizes a decade of compute apart: a chord between them overstates
// m by ~4% (1.3 read as ~1.35), more than a strongly paired study's interval is wide; the cubic's estimand is the
// truth within its first segment's ~0.7%.
double curved_loss(double compute) { return 1.5 + 40.0 * std::pow(compute, -0.15); }
// Straight in ln C: where a skewed baseline moves its mean, the true multiplier of means stays one number.
double straight_loss(double compute) { return 3.0 - 0.08 * std::log(compute / 1e10); }

test::PairedLadder ladder(int seeds, double multiplier, test::SeedNoise noise = test::SeedNoise::normal,
                          double own = 0.006, double shared = 0.006) {
  auto design = test::paired_design(curved_loss, seeds, own, shared);
  design.multiplier = multiplier;
  design.noise = noise;
  return design;
}

Tally calibrate_ladder(const std::string& scenario, const test::PairedLadder& design, double truth) {
  return calibrate(scenario, [&](std::uint64_t seed) { return test::paired_ladder(design, seed); }, truth);
}

// The trend of ln m_local on ln N, whose resolution turns the headline into "at the largest size": its interval
// covers a true slope, and with one multiplier at every size it is resolved no more often than 1× is excluded.
struct TrendTally {
  int draws = 0, bounded = 0, covers = 0, resolved = 0;
};

TrendTally calibrate_trend(const std::string& scenario, const test::PairedLadder& design) {
  quiet_solver_logging();
  TrendTally t;
  for (int draw = 0; draw < test::calibration_draws(); ++draw) {
    const FitReport report =
        fit_runs(test::paired_ladder(design, 1000 + static_cast<std::uint64_t>(draw)),
                 test::law_free_fit(static_cast<std::uint64_t>(draw)));
    const Comparison& c = report.comparisons.at(0);
    ++t.draws;
    t.resolved += c.trend_resolved() ? 1 : 0;
    if (!c.trend.bounded()) continue;
    ++t.bounded;
    t.covers += c.trend.lo <= design.multiplier_slope && design.multiplier_slope <= c.trend.hi ? 1 : 0;
  }
  std::printf("| %s | slope %.3g | %d | %d | %.1f%% | resolved %.1f%% |\n", scenario.c_str(), design.multiplier_slope,
              t.draws, t.bounded, t.bounded > 0 ? 100.0 * t.covers / t.bounded : 0.0, 100.0 * t.resolved / t.draws);
  return t;
}

TEST(ScalingCalibration, TheTrendWithSizeCoversItsTruthAndIsRarelyResolvedWithoutOne) {
  test::PairedLadder falling = ladder(3, 1.5);
  falling.multiplier_slope = -0.1;  // 1.5x at the smallest size, 1.5 x 100^-0.1 = 0.95x at the largest
  const TrendTally t = calibrate_trend("trend, ladder 5 sizes, convex baseline, 3 seeds", falling);
  EXPECT_GE(t.bounded, 0.9 * t.draws);
  EXPECT_GE(static_cast<double>(t.covers) / t.bounded, 0.90);
  EXPECT_LE(static_cast<double>(t.covers) / t.bounded, 0.98);
  const TrendTally flat = calibrate_trend("trend, ladder 5 sizes, convex baseline, 3 seeds", ladder(3, 1.3));
  EXPECT_LE(static_cast<double>(flat.resolved) / flat.draws, 0.07) << "a trend resolved where there is none";
}

TEST(ScalingCalibration, AStronglyPairedLadderOnAConvexBaselineCoversTheTruth) {
  expect_calibrated(calibrate_ladder("ladder 5 sizes, convex baseline, strong pairing, 3 seeds",
                                     ladder(3, 1.3, test::SeedNoise::normal, 0.002, 0.01), 1.3));
}

TEST(ScalingCalibration, ALadderWithTwoSeedsCoversTheTruthAndWithNoEffectRarelyExcludesOne) {
  expect_calibrated(calibrate_ladder("ladder 5 sizes, convex baseline, 2 seeds", ladder(2, 1.3), 1.3));
  const Tally null = calibrate_ladder("ladder 5 sizes, convex baseline, 2 seeds", ladder(2, 1.0), 1.0);
  EXPECT_LE(null.false_positives(), 0.07);
}

TEST(ScalingCalibration, ALadderWithSixSeedsCoversTheTruth) {
  expect_calibrated(calibrate_ladder("ladder 5 sizes, convex baseline, 6 seeds", ladder(6, 1.3), 1.3));
}

TEST(ScalingCalibration, HeavyTailedAndHeteroscedasticSeedNoiseAreCovered) {
  expect_calibrated(calibrate_ladder("ladder 5 sizes, convex baseline, t3 seed noise, 3 seeds",
                                     ladder(3, 1.3, test::SeedNoise::heavy_tailed), 1.3));
  expect_calibrated(calibrate_ladder("ladder 5 sizes, convex baseline, heteroscedastic noise, 3 seeds",
                                     ladder(3, 1.3, test::SeedNoise::heteroscedastic), 1.3));
}

// The baseline is 0.10 worse in a quarter of its seeds (bimodal): its mean is 0.025 worse, and the multiplier of
// means, what both the local multiplier and the law (fitted to configurations' means) estimate, is
// 1.3·exp(0.025/0.08) on a baseline falling 0.08 per e-fold of compute. Known gap: three seeds of so skewed a
// noise make the mean's sampling distribution skewed too, and the t-widened percentile interval covers 84% of
// the time at 200 draws, short of 90% (docs/scaling-laws.md, "Calibration"); this test holds the line there.
TEST(ScalingCalibration, ASkewedBaselineIsCoveredAtTheMultiplierOfMeansShortOfNominal) {
  auto design = test::paired_design(straight_loss, 3, 0.006, 0.006);
  design.multiplier = 1.3;
  design.noise = test::SeedNoise::skewed;
  const Tally t = calibrate_ladder("ladder 5 sizes, straight baseline, bimodal baseline seeds, 3 seeds", design,
                                   1.3 * std::exp(0.025 / 0.08));
  EXPECT_GE(t.coverage(), 0.80);
  EXPECT_LE(t.coverage(), 0.98);
}

// The law's figure the verdict prints as its check: law c's shared constant, on a baseline of the law's own form.
TEST(ScalingCalibration, TheLawsCheckCoversTheTruthAndWithNoEffectRarelyExcludesOne) {
  const auto study = [](double m) {
    return [m](std::uint64_t seed) { return test::paired_ladder(ladder(3, m), seed); };
  };
  expect_calibrated(calibrate("law c's shared constant, ladder 5 sizes, 3 seeds", study(1.3), 1.3, law_constant,
                              LawKind::c));
  const Tally null = calibrate("law c's shared constant, ladder 5 sizes, 3 seeds", study(1.0), 1.0, law_constant,
                               LawKind::c);
  EXPECT_LE(null.false_positives(), 0.07);
}

}  // namespace
}  // namespace gammalab
