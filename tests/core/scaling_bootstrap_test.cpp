// Bootstrap: grouped resampling, percentile intervals, reproducibility, and coverage of the truth.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "core/scaling/bootstrap.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/fit.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

TEST(ScalingBootstrap, SeedsDifferPerIndexAndAreStable) {
  EXPECT_EQ(resample_seed(42, 7), resample_seed(42, 7));
  EXPECT_NE(resample_seed(42, 7), resample_seed(42, 8));
  EXPECT_NE(resample_seed(42, 7), resample_seed(43, 7));
}

TEST(ScalingBootstrap, ResamplesWholeModelSizes) {
  // Three runs per size; a resample must contain either all or none of a size's runs (in multiples).
  auto runs = test::chinchilla_runs({}, 6, 3, 0.0, 1);
  std::mt19937_64 rng(9);
  for (int trial = 0; trial < 20; ++trial) {
    const auto indices = resample_by_model_size(runs, rng, 3);
    EXPECT_EQ(indices.size(), runs.size());  // 6 sizes drawn, 3 runs each
    std::map<double, int> per_size;
    for (auto i : indices) per_size[runs[i].params]++;
    EXPECT_GE(per_size.size(), 3u);  // degenerate draws are redrawn
    for (const auto& [size, count] : per_size) EXPECT_EQ(count % 3, 0) << size;
  }
}

TEST(ScalingBootstrap, PercentileIntervalInterpolates) {
  std::vector<double> values;
  for (int i = 0; i <= 100; ++i) values.push_back(i);
  values.push_back(std::nan(""));
  const Interval interval = percentile_interval(values, 0.9);
  EXPECT_DOUBLE_EQ(interval.lo, 5.0);
  EXPECT_DOUBLE_EQ(interval.hi, 95.0);
  const Interval with_inf = percentile_interval({1.0, 2.0, INFINITY, INFINITY}, 0.5);
  EXPECT_TRUE(std::isinf(with_inf.hi));
}

TEST(ScalingBootstrap, SameSeedSameIntervalsWhateverTheThreads) {
  quiet_solver_logging();
  const auto runs = test::power_runs(1.8, 400.0, 0.3, 12, 0.01, 3);
  FitOptions options;
  options.law = LawKind::n;
  options.bootstrap = 40;
  options.seed = 123;
  options.settings.threads = 1;
  const FitReport a = fit_runs(runs, options);
  options.settings.threads = 2;
  const FitReport b = fit_runs(runs, options);
  options.seed = 124;
  const FitReport c = fit_runs(runs, options);
  ASSERT_EQ(a.groups.size(), 1u);
  for (std::size_t i = 0; i < a.groups[0].parameters.size(); ++i) {
    EXPECT_EQ(a.groups[0].parameters[i].lo, b.groups[0].parameters[i].lo);
    EXPECT_EQ(a.groups[0].parameters[i].hi, b.groups[0].parameters[i].hi);
  }
  EXPECT_NE(a.groups[0].parameters[0].lo, c.groups[0].parameters[0].lo);
}

const Estimate& find(const std::vector<Estimate>& list, const std::string& name) {
  return *std::find_if(list.begin(), list.end(), [&](const Estimate& e) { return e.name == name; });
}

TEST(ScalingBootstrap, ChinchillaParametersLieInTheirIntervals) {
  const test::ChinchillaTruth truth;
  quiet_solver_logging();
  // 16 sizes x 15 token counts = 240 runs, 1% noise. A coarse start grid keeps the test fast; the full
  // 4,500-start grid is exercised in scaling_fit_test and the benchmark.
  const auto runs = test::chinchilla_runs(truth, 16, 15, 0.01, 2024);
  FitOptions options;
  options.law = LawKind::chinchilla;
  options.bootstrap = 100;
  options.seed = 1;
  options.settings.grid_exponent = {0.0, 1.0};
  options.settings.grid_e = {-1.0, 0.0, 1.0};
  options.settings.grid_coef = {0.0, 10.0, 20.0};
  const FitReport report = fit_runs(runs, options);
  const auto& p = report.groups.at(0).parameters;
  EXPECT_EQ(report.bootstrap_used, 100);
  EXPECT_TRUE(report.groups.at(0).fit.converged);
  const std::vector<std::pair<std::string, double>> expected = {
      {"E", truth.E}, {"A", truth.A}, {"alpha", truth.alpha}, {"B", truth.B}, {"beta", truth.beta}};
  for (const auto& [name, value] : expected) {
    const Estimate& e = find(p, name);
    EXPECT_LE(e.lo, e.value) << name;
    EXPECT_GE(e.hi, e.value) << name;
    EXPECT_LE(e.lo, value) << name;
    EXPECT_GE(e.hi, value) << name;
  }
}

// Repeated draws: the 95% intervals should cover the truth in most of them. With 40 draws a true 95%
// coverage gives >= 34 covers with probability ~0.99; we accept >= 32 (80%).
TEST(ScalingBootstrap, IntervalsCoverTheTruthInRepeatedDraws) {
  quiet_solver_logging();
  const double E = 1.8, A = 400.0, alpha = 0.3;
  const int draws = 40;
  int cover_e = 0, cover_a = 0, cover_alpha = 0;
  for (int draw = 0; draw < draws; ++draw) {
    // Two runs (seeds) per size: the resampling unit holds both.
    auto runs = test::power_runs(E, A, alpha, 12, 0.01, 1000 + static_cast<std::uint64_t>(draw));
    const auto more = test::power_runs(E, A, alpha, 12, 0.01, 5000 + static_cast<std::uint64_t>(draw));
    runs.insert(runs.end(), more.begin(), more.end());
    FitOptions options;
    options.law = LawKind::n;
    options.bootstrap = 80;
    options.seed = static_cast<std::uint64_t>(draw);
    const FitReport report = fit_runs(runs, options);
    const auto& p = report.groups.at(0).parameters;
    auto covers = [&](const char* name, double truth) {
      const Estimate& e = find(p, name);
      return e.lo <= truth && truth <= e.hi ? 1 : 0;
    };
    cover_e += covers("E", E);
    cover_a += covers("A", A);
    cover_alpha += covers("alpha", alpha);
  }
  EXPECT_GE(cover_e, 32);
  EXPECT_GE(cover_a, 32);
  EXPECT_GE(cover_alpha, 32);
  RecordProperty("coverage_E", cover_e);
  RecordProperty("coverage_A", cover_a);
  RecordProperty("coverage_alpha", cover_alpha);
  std::printf("coverage over %d draws: E %d, A %d, alpha %d\n", draws, cover_e, cover_a, cover_alpha);
}

}  // namespace
}  // namespace gammalab
