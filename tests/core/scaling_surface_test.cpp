// The law-free comparison on a surface (cooldown branches, docs/branches.md): every size at the same token
// budgets in tokens per parameter. Each budget's slice is a ladder of its own, so a variant's size is read
// against the baseline's sizes at its own budget, and the pooled local multiplier recovers a known one.
#include <cmath>
#include <random>
#include <utility>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/fit_runs.h"
#include "tests/core/law_free_fit.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

// Straight in ln C within a slice, so that interpolating between sizes is exact; a slice further from 20 tokens
// per parameter is worse at the same compute, so one curve through every slice would mistake budgets for compute.
double surface_loss(double compute, double ratio) {
  return 3.0 - 0.08 * std::log(compute / 1e10) + 0.05 * std::abs(std::log(ratio / 20.0));
}

std::vector<RunPoint> surface_runs(double multiplier, std::uint64_t seed,
                                   const std::vector<double>& ratios = {5.0, 10.0, 20.0}) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<RunPoint> runs;
  for (const double n : {1e6, 2e6, 4e6, 8e6, 16e6}) {
    for (const double ratio : ratios) {
      const double d = ratio * n, c = 6.0 * n * d;
      for (int s = 0; s < 3; ++s) {
        const double shared = 0.01 * z(rng);
        RunPoint base{n, d, c, surface_loss(c, ratio) + shared + 0.002 * z(rng), "baseline", ""};
        base.seed = static_cast<std::uint64_t>(s);
        RunPoint variant{n * 1.0001, d, c, surface_loss(multiplier * c, ratio) + shared + 0.002 * z(rng), "unified", ""};
        variant.seed = static_cast<std::uint64_t>(s);
        runs.push_back(base);
        runs.push_back(variant);
      }
    }
  }
  return runs;
}

TEST(ScalingSurface, EachBudgetIsALadderAndThePooledMultiplierIsTheTruth) {
  quiet_solver_logging();
  const FitReport report = fit_runs(surface_runs(1.22, 11), test::law_free_fit(3));
  ASSERT_EQ(report.comparisons.size(), 1u);
  const Comparison& c = report.comparisons[0];
  EXPECT_TRUE(c.ladder) << "three budgets at every size: three curves, not none";
  ASSERT_EQ(c.sizes.size(), 15u);
  // The largest size of each slice is beyond the baseline's reach: 4 of 5 sizes inside, per slice.
  EXPECT_EQ(c.sizes_inside, 12);
  // Straight slices: each size's m_local is the multiplier, up to the noise of the baseline's curve, whose
  // means carry the seeds' shared effect (0.01 / sqrt(3) in loss, about 7% in m at a slope of 0.08 per e-fold).
  for (const auto& s : c.sizes) {
    if (s.inside) {
      EXPECT_NEAR(s.local.value, 1.22, 0.2) << "N " << s.params << " D " << s.tokens;
    }
  }
  EXPECT_NEAR(c.local.value, 1.22, 0.05);
  EXPECT_LE(c.local.lo, 1.22);
  EXPECT_GE(c.local.hi, 1.22);
  EXPECT_GT(c.local.lo, 1.0);
  // Read against one curve through all budgets, the slices' offsets would pass for compute: the slices keep a
  // size's comparison at its own budget.
  const FitReport none = fit_runs(surface_runs(1.0, 11), test::law_free_fit(3));
  EXPECT_NEAR(none.comparisons.at(0).local.value, 1.0, 0.05);
  EXPECT_LE(none.comparisons.at(0).local.lo, 1.0);
  EXPECT_GE(none.comparisons.at(0).local.hi, 1.0);
}

// The runs come in a branch sweep's job order (a run, then its shorter branches); every table lists the sizes by
// N, then D.
TEST(ScalingSurface, TheComparisonListsSizesByParametersThenTokens) {
  quiet_solver_logging();
  const FitReport report = fit_runs(surface_runs(1.22, 11, {20.0, 5.0, 10.0}), test::law_free_fit(3));
  const auto& sizes = report.comparisons.at(0).sizes;
  ASSERT_EQ(sizes.size(), 15u);
  for (std::size_t k = 1; k < sizes.size(); ++k) {
    EXPECT_LT(std::pair(sizes[k - 1].params, sizes[k - 1].tokens), std::pair(sizes[k].params, sizes[k].tokens)) << k;
  }
}

TEST(ScalingSurface, SizesWithDifferentNumbersOfBudgetsAreNoCurves) {
  quiet_solver_logging();
  std::vector<RunPoint> runs = surface_runs(1.22, 11);
  // The largest size lost its smallest budget: slices no longer line up across sizes.
  std::erase_if(runs, [](const RunPoint& r) { return r.params >= 16e6 && r.tokens < 10 * r.params; });
  const FitReport report = fit_runs(runs, test::law_free_fit(3));
  EXPECT_FALSE(report.comparisons.at(0).ladder);
  EXPECT_TRUE(std::isnan(report.comparisons.at(0).local.value));
}

// The token multiplier at fixed N (core/scaling/token_multiplier.h): read along each size's own budgets, it
// recovers a variant that needs 1.3 times fewer tokens at every size, budget by budget, with no noise; the
// budget past the baseline's largest (40 tokens per parameter read at 52) is marked outside, and the tangent
// it is read along costs under half a percent on this convex curve (1.2966).
TEST(ScalingSurface, TheTokenMultiplierAtFixedSizeIsReadAlongEachSizesBudgets) {
  quiet_solver_logging();
  test::BranchSurface design;
  design.law = test::BranchSurface::token_law;
  design.multiplier = 1.3;
  design.pair_sigma = design.run_sigma = design.branch_sigma = 0.0;
  const FitReport report = fit_runs(test::branch_surface(design, 1), test::law_free_fit(3));
  const Comparison& c = report.comparisons.at(0);
  ASSERT_EQ(c.token_sizes.size(), 3u);
  for (const SizeTokenMultiplier& t : c.token_sizes) {
    EXPECT_EQ(t.budgets, 4) << t.params;
    EXPECT_EQ(t.budgets_inside, 3) << t.params;
    EXPECT_EQ(t.degrees_of_freedom, 1) << t.params << ": two pairs";
    EXPECT_NEAR(t.value.value, 1.3, 0.005 * 1.3) << t.params;
  }
  EXPECT_EQ(c.token_sizes[0].params, 1e6);
  EXPECT_NEAR(c.tokens.value, 1.3, 0.005 * 1.3);
  EXPECT_DOUBLE_EQ(c.tokens_degrees_of_freedom, 3.0) << "three sizes of two seeds: Satterthwaite's 3";
  // Stored and read back, the same numbers.
  const Comparison back = fit_report_from_json(to_json(report)).comparisons.at(0);
  ASSERT_EQ(back.token_sizes.size(), 3u);
  EXPECT_EQ(back.token_sizes[2].value.value, c.token_sizes[2].value.value);
  EXPECT_EQ(back.token_sizes[2].budgets_inside, 3);
  EXPECT_EQ(back.tokens.lo, c.tokens.lo);
  EXPECT_EQ(back.tokens_degrees_of_freedom, 3.0);
}

TEST(ScalingSurface, ALadderOfOneBudgetPerSizeHasNoTokenMultiplier) {
  quiet_solver_logging();
  const FitReport report = fit_runs(surface_runs(1.22, 11, {20.0}), test::law_free_fit(3));
  EXPECT_TRUE(report.comparisons.at(0).token_sizes.empty());
  EXPECT_TRUE(std::isnan(report.comparisons.at(0).tokens.value));
}

}  // namespace
}  // namespace gammalab
