// Compute multipliers: closed forms, and recovery from fitted synthetic laws with a known ratio.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/scaling/compute_multiplier.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/fit.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

TEST(ScalingMultiplier, VariantAtScaledComputeGivesThatRatio) {
  const FrontierLaw base{1.8, 250.0, 0.11};
  // variant(C) = base(1.25·C)  <=>  A_v = A_b·1.25^-alpha.
  const FrontierLaw variant{1.8, 250.0 * std::pow(1.25, -0.11), 0.11};
  for (double c : {1e18, 1e20, 1e22}) EXPECT_NEAR(compute_multiplier(base, variant, c), 1.25, 1e-9);
  EXPECT_NEAR(constant_multiplier(base.A, variant.A, base.alpha), 1.25, 1e-12);
  EXPECT_NEAR(frontier_loss(base, compute_to_reach(base, 2.5)), 2.5, 1e-12);
  EXPECT_TRUE(std::isinf(compute_to_reach(base, 1.7)));  // below E: unreachable
}

TEST(ScalingMultiplier, DifferentIrreducibleLossesMakeItDependOnBudget) {
  const FrontierLaw base{1.8, 250.0, 0.11}, variant{1.75, 250.0, 0.11};
  EXPECT_GT(compute_multiplier(base, variant, 1e18), 1.0);
  EXPECT_GT(compute_multiplier(base, variant, 1e21), compute_multiplier(base, variant, 1e18));
}

TEST(ScalingMultiplier, ChinchillaEnvelopeIsTheMinimumOverAllocations) {
  const test::ChinchillaTruth t;
  LawFit fit;
  fit.kind = LawKind::chinchilla;
  fit.theta = {std::log(t.E), t.alpha, t.beta, std::log(t.A), std::log(t.B)};
  describe_fit(fit);
  const auto law = frontier_law(fit);
  ASSERT_TRUE(law);
  for (double c : {1e19, 1e21, 1e23}) {
    double best = 1e9;
    for (double n : test::log_space(1e6, 1e13, 20000)) best = std::min(best, t.loss(n, c / (6 * n)));
    EXPECT_NEAR(frontier_loss(*law, c), best, 1e-6);
  }
}

// Baseline and variant drawn from L(C) laws where variant(C) = baseline(1.25·C), fitted with law c.
TEST(ScalingMultiplier, FitRecoversKnownRatioWithPairedBootstrap) {
  quiet_solver_logging();
  std::mt19937_64 rng(77);
  std::normal_distribution<double> z(0.0, 0.003);
  std::vector<RunPoint> runs;
  const double E = 1.9, A = 400.0, alpha = 0.12;
  for (double c : test::log_space(1e17, 1e21, 14)) {
    const double n = std::sqrt(c / 120.0);  // one model size per budget, D = 20·N
    runs.push_back({n, 20 * n, c, (E + A * std::pow(c, -alpha)) * std::exp(z(rng)), "baseline", ""});
    runs.push_back({n, 20 * n, c, (E + A * std::pow(1.25 * c, -alpha)) * std::exp(z(rng)), "unified", ""});
  }
  FitOptions options;
  options.law = LawKind::c;
  options.bootstrap = 60;
  options.seed = 5;
  options.budgets = {1e18, 1e20};
  const FitReport report = fit_runs(runs, options);
  ASSERT_EQ(report.multipliers.size(), 1u);
  const Multiplier& m = report.multipliers[0];
  EXPECT_EQ(m.variant, "unified");
  ASSERT_TRUE(m.constant);
  EXPECT_NEAR(m.constant->value, 1.25, 0.05);
  EXPECT_LE(m.constant->lo, 1.25);
  EXPECT_GE(m.constant->hi, 1.25);
  for (const auto& b : m.at_budgets) {
    EXPECT_NEAR(b.multiplier.value, 1.25, 0.15) << b.compute;
    EXPECT_LE(b.multiplier.lo, b.multiplier.value);
    EXPECT_GE(b.multiplier.hi, b.multiplier.value);
  }
}

// Chinchilla laws: the variant is the baseline with N and D both scaled by sqrt(1.25), so its compute-optimal
// frontier is the baseline's at 1.25·C; the fitted envelopes must give 1.25 at every budget.
TEST(ScalingMultiplier, ChinchillaFitsRecoverKnownRatio) {
  quiet_solver_logging();
  const test::ChinchillaTruth t;
  std::vector<RunPoint> runs;
  const double s = std::sqrt(1.25);
  for (double n : test::log_space(2e7, 2e9, 8)) {
    for (double d : test::log_space(2e8, 2e11, 8)) {
      runs.push_back({n, d, 0.0, t.loss(n, d), "baseline", ""});
      runs.push_back({n, d, 0.0, t.loss(s * n, s * d), "unified", ""});
    }
  }
  FitOptions options;
  options.law = LawKind::chinchilla;
  options.bootstrap = 0;
  options.budgets = {1e18, 1e20, 1e22};  // 1e22 lies above the largest run (2.4e21)
  options.settings.grid_exponent = {0.0, 1.0};
  options.settings.grid_e = {-1.0, 0.0, 1.0};
  options.settings.grid_coef = {0.0, 10.0, 20.0};
  EXPECT_THROW(fit_runs(runs, options), std::invalid_argument) << "a budget outside the data needs extrapolate";
  options.extrapolate = true;
  const FitReport report = fit_runs(runs, options);
  ASSERT_EQ(report.multipliers.size(), 1u);
  EXPECT_FALSE(report.multipliers[0].constant);  // only law c has the shared-exponent fit
  for (const auto& b : report.multipliers[0].at_budgets) EXPECT_NEAR(b.multiplier.value, 1.25, 2e-3) << b.compute;
  const auto& at = report.multipliers[0].at_budgets;
  ASSERT_EQ(at.size(), 3u);
  EXPECT_FALSE(at[0].extrapolated);
  EXPECT_FALSE(at[1].extrapolated);
  EXPECT_TRUE(at[2].extrapolated) << "outside the runs' compute range";
}

}  // namespace
}  // namespace gammalab
