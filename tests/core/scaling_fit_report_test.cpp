// fit_runs end to end: default law, groups, holdout of the largest size, JSON and table rendering.
#include <cmath>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/scaling/fit_runs.h"
#include "core/scaling/fit.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

TEST(ScalingFitReport, DefaultLawFollowsTokenVariation) {
  EXPECT_EQ(default_law(test::power_runs(1.8, 400, 0.3, 6, 0.0, 1)), LawKind::n);  // one token count
  EXPECT_EQ(default_law(test::chinchilla_runs({}, 4, 4, 0.0, 1)), LawKind::chinchilla);
  std::vector<RunPoint> tied;  // D = 20·N: N and D not separable
  for (double n : test::log_space(1e7, 1e9, 6)) tied.push_back({n, 20 * n, 0, 3.0, "", ""});
  EXPECT_EQ(default_law(tied), LawKind::n);
}

TEST(ScalingFitReport, HoldoutPredictsTheLargestSize) {
  quiet_solver_logging();
  auto runs = test::power_runs(1.8, 400.0, 0.3, 10, 0.0, 1);
  FitOptions options;
  options.law = LawKind::n;
  options.bootstrap = 0;
  options.holdout_largest = true;
  const FitReport report = fit_runs(runs, options);
  ASSERT_TRUE(report.groups.at(0).holdout);
  const HoldoutCheck& h = *report.groups[0].holdout;
  EXPECT_DOUBLE_EQ(h.held_out_params, 1e10);
  ASSERT_EQ(h.runs.size(), 1u);
  EXPECT_LT(h.mean_abs_relative_error, 1e-4);  // noiseless law extrapolates exactly
  EXPECT_EQ(h.fit.points, 9);
}

TEST(ScalingFitReport, JsonAndTableCarryEstimatesAndMultipliers) {
  quiet_solver_logging();
  std::vector<RunPoint> runs;
  for (double c : test::log_space(1e17, 1e21, 10)) {
    const double n = std::sqrt(c / 120.0);
    runs.push_back({n, 20 * n, c, 1.9 + 400.0 * std::pow(c, -0.12), "baseline", ""});
    runs.push_back({n, 20 * n, c, 1.9 + 400.0 * std::pow(1.2 * c, -0.12), "unified", ""});
  }
  FitOptions options;
  options.law = LawKind::c;
  options.bootstrap = 20;
  options.seed = 9;
  options.budgets = {1e19};
  const FitReport report = fit_runs(runs, options);
  const auto json = to_json(report);
  EXPECT_EQ(json["law"], "c");
  EXPECT_EQ(json["bootstrap"]["requested"], 20);
  EXPECT_EQ(json["groups"].size(), 2u);
  EXPECT_EQ(json["groups"][0]["group"], "baseline");
  EXPECT_TRUE(json["groups"][0]["parameters"].contains("alpha"));
  EXPECT_TRUE(json["groups"][0]["parameters"]["E"]["lo"].is_number());
  EXPECT_EQ(json["multipliers"][0]["variant"], "unified");
  EXPECT_NEAR(json["multipliers"][0]["at_budgets"][0]["value"].get<double>(), 1.2, 1e-3);
  EXPECT_NEAR(json["multipliers"][0]["constant"]["value"].get<double>(), 1.2, 1e-3);
}

TEST(ScalingFitReport, IsoflopBootstrapsTheAllocationExponent) {
  const test::ChinchillaTruth truth;
  std::mt19937_64 rng(4);
  std::normal_distribution<double> z(0.0, 0.003);
  std::vector<RunPoint> runs;
  for (double c : test::log_space(1e18, 1e21, 5)) {
    // Sizes within about a decade around the optimum, where the parabola is a fair approximation.
    const double n_opt = std::pow(c / 6.0, truth.beta / (truth.alpha + truth.beta)) *
                         std::pow(truth.alpha * truth.A / (truth.beta * truth.B), 1.0 / (truth.alpha + truth.beta));
    for (double n : test::log_space(n_opt / 4, n_opt * 4, 7)) {
      runs.push_back({n, c / (6 * n), c, truth.loss(n, c / (6 * n)) * std::exp(z(rng)), "", ""});
    }
  }
  FitOptions options;
  options.law = LawKind::isoflop;
  options.bootstrap = 40;
  const FitReport report = fit_runs(runs, options);
  const auto& a = report.groups.at(0).parameters.at(0);
  ASSERT_EQ(a.name, "a");
  const double expected = truth.beta / (truth.alpha + truth.beta);
  EXPECT_NEAR(a.value, expected, 0.03);
  EXPECT_LT(a.lo, a.value);
  EXPECT_GT(a.hi, a.value);
  EXPECT_EQ(report.groups[0].fit.points, 5);  // budgets used
}

TEST(ScalingFitReport, NonFiniteNumbersBecomeStrings) {
  FitReport report;
  GroupFit g;
  g.group = "all";
  g.parameters.push_back({"E", 1.0, std::nan(""), INFINITY});
  report.groups.push_back(g);
  const auto json = to_json(report);
  EXPECT_EQ(json["groups"][0]["parameters"]["E"]["lo"], "nan");
  EXPECT_EQ(json["groups"][0]["parameters"]["E"]["hi"], "inf");
}

TEST(ScalingFitReport, RejectsGroupsTooSmallForTheLaw) {
  auto runs = test::power_runs(1.8, 400.0, 0.3, 2, 0.0, 1);
  FitOptions options;
  options.law = LawKind::n;
  EXPECT_THROW(fit_runs(runs, options), std::invalid_argument);
  EXPECT_THROW(fit_runs({}, options), std::invalid_argument);
}

}  // namespace
}  // namespace gammalab
