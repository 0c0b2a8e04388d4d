// Fits that know their limits: sizes counted as sizes, seeds summarised and resampled, multipliers only inside
// the data unless asked, the largest size predicted from the others, and the final-loss rule.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/run_point.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

// A compute-optimal ladder with tokens tied to parameters (D = 20·N): the baseline follows
// L(C) = E + A·C^-alpha; the variant's loss at C is the baseline's at `multiplier`·C, so it needs
// 1/multiplier of the baseline's compute for any loss. `seeds` runs per size, multiplicative noise sigma.
std::vector<RunPoint> tied_study(int sizes, int seeds, double multiplier, double sigma, std::uint64_t seed) {
  const double E = 1.8, A = 60.0, alpha = 0.15;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<RunPoint> runs;
  for (double n : test::log_space(1e6, 1e8, sizes)) {
    const double d = 20.0 * n, c = 6.0 * n * d;
    for (int s = 0; s < seeds; ++s) {
      runs.push_back({n, d, 0.0, (E + A * std::pow(c, -alpha)) * std::exp(sigma * z(rng)), "baseline", ""});
      runs.push_back({n, d, 0.0, (E + A * std::pow(multiplier * c, -alpha)) * std::exp(sigma * z(rng)), "unified", ""});
    }
  }
  return runs;
}

FitOptions small_grid(LawKind law, int bootstrap) {
  FitOptions options;
  options.law = law;
  options.bootstrap = bootstrap;
  options.settings.grid_exponent = {0.1, 0.5, 1.0};
  options.settings.grid_e = {-0.5, 0.0, 0.5, 1.0};
  options.settings.grid_coef = {0.0, 5.0, 10.0};
  return options;
}

TEST(ScalingLimits, RefusesTooFewDistinctSizesCountingSizesNotRuns) {
  // One size, three seeds: three runs, but L(N) has three free parameters and one size identifies none.
  std::vector<RunPoint> one_size = {{1e6, 2e7, 0, 3.1, "baseline", ""},
                                    {1e6, 2e7, 0, 3.2, "baseline", ""},
                                    {1e6, 2e7, 0, 3.0, "baseline", ""}};
  const FitOptions options = small_grid(LawKind::n, 0);
  const auto missing = not_enough_sizes(one_size, options);
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->find("group 'baseline' has 3 runs at 1 distinct model size"), std::string::npos) << *missing;
  EXPECT_NE(missing->find("needs runs at 3 or more distinct sizes"), std::string::npos) << *missing;
  try {
    fit_runs(one_size, options);
    ADD_FAILURE() << "fitted a law to one size";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), *missing);
  }

  // Two sizes with many seeds are still two levels; a third size makes the law identifiable.
  auto runs = tied_study(2, 4, 1.0, 0.01, 3);
  EXPECT_TRUE(not_enough_sizes(runs, options));
  FitOptions law_c = small_grid(LawKind::c, 0);
  const auto no_frontier = not_enough_sizes(runs, law_c);
  ASSERT_TRUE(no_frontier);
  EXPECT_NE(no_frontier->find("2 compute levels on its frontier"), std::string::npos) << *no_frontier;
  runs = tied_study(3, 1, 1.0, 0.01, 3);
  EXPECT_FALSE(not_enough_sizes(runs, options));
  EXPECT_FALSE(not_enough_sizes(runs, law_c));
}

TEST(ScalingLimits, RecoversAKnownMultiplierInsideItsInterval) {
  quiet_solver_logging();
  const auto runs = tied_study(6, 2, 1.3, 0.001, 11);
  FitOptions options = small_grid(LawKind::c, 200);
  const FitReport report = fit_runs(runs, options);
  EXPECT_EQ(report.bootstrap_unit, kResampleSeeds) << "every size has two seeds";
  ASSERT_EQ(report.multipliers.size(), 1u);
  const Multiplier& m = report.multipliers[0];
  ASSERT_TRUE(m.constant);
  EXPECT_NEAR(m.constant->value, 1.3, 0.1);
  EXPECT_TRUE(m.constant->bounded());
  EXPECT_LE(m.constant->lo, 1.3);
  EXPECT_GE(m.constant->hi, 1.3);
  EXPECT_GT(m.constant->lo, 1.0) << "the interval excludes no difference";
  ASSERT_FALSE(m.at_budgets.empty());
  for (const auto& at : m.at_budgets) {
    EXPECT_GE(at.compute, m.compute_lo);
    EXPECT_LE(at.compute, m.compute_hi);
    EXPECT_TRUE(at.multiplier.bounded()) << at.compute;
    EXPECT_LE(at.multiplier.lo, 1.3) << at.compute;
    EXPECT_GE(at.multiplier.hi, 1.3) << at.compute;
  }
}

TEST(ScalingLimits, SummarisesSeedsPerSizeAndResamplesSizesWithoutThem) {
  std::vector<RunPoint> runs;
  for (double n : {1e6, 2e6, 4e6}) {
    runs.push_back({n, 20 * n, 0, 3.0, "baseline", ""});
    runs.push_back({n, 20 * n, 0, 3.2, "baseline", ""});
  }
  const FitReport report = fit_runs(runs, small_grid(LawKind::n, 10));
  EXPECT_EQ(report.bootstrap_unit, kResampleSeeds);
  ASSERT_EQ(report.groups.size(), 1u);
  const auto& sizes = report.groups[0].sizes;
  ASSERT_EQ(sizes.size(), 3u);
  for (const auto& s : sizes) {
    EXPECT_EQ(s.runs, 2);
    EXPECT_DOUBLE_EQ(s.mean, 3.1);
    EXPECT_NEAR(s.standard_error, 0.1, 1e-12) << "sd 0.1414 / sqrt(2)";
  }
  runs.pop_back();  // one configuration loses a seed: there is no seed noise to resample there
  const FitReport partial = fit_runs(runs, small_grid(LawKind::n, 10));
  EXPECT_EQ(partial.bootstrap_unit, kResampleSizes);
  EXPECT_TRUE(std::isnan(partial.groups[0].sizes.back().standard_error));
  bool warned = false;
  for (const auto& w : partial.warnings) warned = warned || w.find("resamples model sizes") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST(ScalingLimits, ThreeSizesWithoutSeedsGiveNoIntervalRatherThanAZeroWidthOne) {
  quiet_solver_logging();
  // One run per configuration and 3 sizes: every resample of sizes that keeps 3 distinct ones is the data.
  const FitReport three = fit_runs(tied_study(3, 1, 1.3, 0.01, 21), small_grid(LawKind::c, 50));
  EXPECT_EQ(three.bootstrap_unit, kResampleSizes);
  EXPECT_EQ(three.bootstrap_used, 0);
  ASSERT_EQ(three.multipliers.size(), 1u);
  ASSERT_TRUE(three.multipliers[0].constant);
  EXPECT_TRUE(std::isfinite(three.multipliers[0].constant->value)) << "the point estimate stays";
  EXPECT_FALSE(three.multipliers[0].constant->bounded());
  for (const auto& p : three.groups[0].parameters) EXPECT_FALSE(p.bounded()) << p.name;
  bool said = false, blamed_fits = false;
  for (const auto& w : three.warnings) {
    said = said || w.find("no bootstrap interval") != std::string::npos;
    blamed_fits = blamed_fits || w.find("non-finite") != std::string::npos;
  }
  EXPECT_TRUE(said);
  EXPECT_FALSE(blamed_fits) << "no resample was drawn, none failed";
  // A fourth size, or a second seed, gives the bootstrap something to vary.
  const FitReport four = fit_runs(tied_study(4, 1, 1.3, 0.01, 21), small_grid(LawKind::c, 50));
  EXPECT_GT(four.bootstrap_used, 0);
  const FitReport seeds = fit_runs(tied_study(3, 2, 1.3, 0.01, 21), small_grid(LawKind::c, 50));
  EXPECT_EQ(seeds.bootstrap_unit, kResampleSeeds);
  EXPECT_GT(seeds.bootstrap_used, 0);
}

TEST(ScalingLimits, BudgetsOutsideTheDataNeedTheExtrapolationFlagAndAreMarked) {
  quiet_solver_logging();
  const auto runs = tied_study(5, 1, 1.3, 0.0, 5);
  FitOptions options = small_grid(LawKind::c, 0);
  options.budgets = {1e16, 1e40};
  EXPECT_THROW(fit_runs(runs, options), std::invalid_argument);
  options.extrapolate = true;
  const FitReport report = fit_runs(runs, options);
  ASSERT_EQ(report.multipliers.size(), 1u);
  const auto& at = report.multipliers[0].at_budgets;
  ASSERT_EQ(at.size(), 2u);
  EXPECT_FALSE(at[0].extrapolated) << "1e16 lies inside [" << report.multipliers[0].compute_lo << ", "
                                   << report.multipliers[0].compute_hi << "]";
  EXPECT_TRUE(at[1].extrapolated);

  // Default budgets lie inside the data. (One may still be marked: at the top decade the baseline needs 1.3x
  // the compute to match, beyond its largest run.)
  options = small_grid(LawKind::c, 0);
  const Multiplier m = fit_runs(runs, options).multipliers[0];
  ASSERT_FALSE(m.at_budgets.empty());
  for (const auto& b : m.at_budgets) {
    EXPECT_GE(b.compute, m.compute_lo);
    EXPECT_LE(b.compute, m.compute_hi);
    EXPECT_EQ(b.extrapolated, 1.3 * b.compute > m.compute_hi) << b.compute;
  }
}

TEST(ScalingLimits, PredictsTheLargestSizeFromTheOthersWithFiveSizes) {
  quiet_solver_logging();
  const FitOptions options = small_grid(LawKind::n, 0);
  const FitReport five = fit_runs(tied_study(5, 1, 1.0, 0.002, 2), options);
  for (const auto& g : five.groups) {
    ASSERT_TRUE(g.holdout) << g.group;
    EXPECT_EQ(g.holdout->runs.size(), 1u);
    EXPECT_LT(g.holdout->max_abs_relative_error, 0.02) << g.group;
  }
  const FitReport four = fit_runs(tied_study(4, 1, 1.0, 0.002, 2), options);
  for (const auto& g : four.groups) EXPECT_FALSE(g.holdout) << "four sizes: three left to fit, none to check";
}

// The band is pointwise: at each x the interval of the refits' losses, around the full fit's law, and narrower
// than the range over the corners of the parameters' intervals (which ignores how E, A and alpha move together).
TEST(ScalingLimits, BandIsThePointwiseIntervalOfTheRefitsAroundTheFittedLaw) {
  quiet_solver_logging();
  const auto runs = tied_study(6, 2, 1.3, 0.003, 11);
  for (LawKind law : {LawKind::c, LawKind::n}) {
    const FitReport r = fit_runs(runs, small_grid(law, 100));
    ASSERT_GT(r.bootstrap_used, 50);
    for (const auto& g : r.groups) {
      EXPECT_EQ(to_json(r)["groups"][0]["band"]["axis"], law == LawKind::c ? "compute" : "params") << g.group;
      ASSERT_EQ(g.band.size(), std::size_t(kBandPoints)) << g.group;
      double lo_x = INFINITY, hi_x = 0;
      for (const auto& run : runs) {
        const double x = law == LawKind::c ? run_compute(run) : run.params;
        lo_x = std::min(lo_x, x);
        hi_x = std::max(hi_x, x);
      }
      EXPECT_NEAR(g.band.front().x, lo_x / 1.5, 1e-6 * lo_x);
      EXPECT_NEAR(g.band.back().x, hi_x * 1.5, 1e-6 * hi_x);
      const auto value = [&](const char* name) {
        for (const auto& e : g.parameters) {
          if (e.name == name) return e;
        }
        return Estimate{};
      };
      const Estimate E = value("E"), A = value("A"), alpha = value("alpha");
      for (std::size_t k = 0; k < g.band.size(); ++k) {
        const BandPoint& b = g.band[k];
        if (k > 0) {
          EXPECT_GT(b.x, g.band[k - 1].x);
        }
        const double fitted = E.value + A.value * std::pow(b.x, -alpha.value);
        EXPECT_LT(b.lo, b.hi) << g.group << " at " << b.x;
        EXPECT_LE(b.lo, fitted * (1 + 1e-9)) << g.group << " at " << b.x;
        EXPECT_GE(b.hi, fitted * (1 - 1e-9)) << g.group << " at " << b.x;
        double corner_lo = INFINITY, corner_hi = 0;
        for (double e : {E.lo, E.hi}) {
          for (double a : {A.lo, A.hi}) {
            for (double p : {alpha.lo, alpha.hi}) {
              corner_lo = std::min(corner_lo, e + a * std::pow(b.x, -p));
              corner_hi = std::max(corner_hi, e + a * std::pow(b.x, -p));
            }
          }
        }
        EXPECT_LT(b.hi - b.lo, corner_hi - corner_lo) << g.group << " at " << b.x;
      }
    }
  }
}

TEST(ScalingLimits, ReportSurvivesItsJsonForm) {
  quiet_solver_logging();
  FitOptions options = small_grid(LawKind::c, 20);
  options.holdout_largest = true;
  const nlohmann::json json = to_json(fit_runs(tied_study(5, 2, 1.3, 0.003, 4), options));
  EXPECT_EQ(to_json(fit_report_from_json(json)), json) << json.dump(2);
}

TEST(ScalingLimits, FinalLossIsTheValLossOfTheEvaluationAtTheLastStep) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<MetricPoint> val = {{50, 0, "val/loss", 3.0}, {100, 0, "val/loss", 2.5}};
  EXPECT_EQ(final_loss(val, 100), 2.5);
  EXPECT_TRUE(std::isnan(final_loss(val, 120))) << "the curve stops before the end of training";
  EXPECT_TRUE(std::isnan(final_loss({}, 100)));
  EXPECT_TRUE(std::isnan(final_loss({{100, 0, "val/loss", nan}}, 100)));
  const std::vector<MetricPoint> train = {{1, 0, "train/loss", 9.0}, {2, 0, "train/loss", 4.0},
                                          {3, 0, "train/loss", nan}, {4, 0, "train/loss", 2.0}};
  EXPECT_DOUBLE_EQ(recent_train_loss(train), (9.0 + 4.0 + 2.0) / 3);
}

}  // namespace
}  // namespace gammalab
