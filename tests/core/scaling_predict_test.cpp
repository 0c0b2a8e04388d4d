// `gammalab fit --predict`: each group's law at rows it was not fitted on, with a bootstrap interval whose
// coverage of the true mean loss is measured on studies simulated from a known law, inside the runs and beyond.
#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "core/scaling/csv_points.h"
#include "core/scaling/fit_runs.h"

namespace gammalab {
namespace {

// The known law: L(N) = 2 + 300 N^-0.3, at 20 tokens per parameter.
double true_loss(double n) { return 2.0 + 300.0 * std::pow(n, -0.3); }

std::vector<RunPoint> study(std::uint64_t seed, int seeds, double noise) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, noise);
  std::vector<RunPoint> runs;
  for (const double n : {1e6, 3e6, 1e7, 3e7, 1e8}) {
    for (int s = 0; s < seeds; ++s) {
      RunPoint run{n, 20.0 * n, 0.0, true_loss(n) + z(rng), "baseline", ""};
      run.seed = static_cast<std::uint64_t>(s);
      runs.push_back(run);
    }
  }
  return runs;
}

RunPoint row(double n, double loss = std::nan("")) { return RunPoint{n, 20.0 * n, 0.0, loss, "", ""}; }

TEST(ScalingPredict, EachGroupsLawPredictsTheRowsWithAnIntervalAndSaysWhichLieOutside) {
  FitOptions options;
  options.law = LawKind::n;
  options.bootstrap = 200;
  options.predict = {row(2e7, true_loss(2e7)), row(4e8)};
  const FitReport report = fit_runs(study(1, 3, 0.01), options);
  ASSERT_EQ(report.groups.size(), 1u);
  const auto& p = report.groups[0].predictions;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].predicted, predict_loss(report.groups[0].fit, p[0].at));
  EXPECT_FALSE(p[0].extrapolated);
  EXPECT_TRUE(p[1].extrapolated) << "4e8 is beyond the largest run";
  EXPECT_LT(p[0].lo, p[0].predicted);
  EXPECT_GT(p[0].hi, p[0].predicted);
  EXPECT_GT(p[1].hi - p[1].lo, p[0].hi - p[0].lo) << "wider beyond the runs";
  EXPECT_NEAR(p[0].predicted, true_loss(2e7), 0.02);
  const FitReport stored = fit_report_from_json(to_json(report));
  ASSERT_EQ(stored.groups[0].predictions.size(), 2u);
  EXPECT_EQ(to_json(stored).dump(), to_json(report).dump());
  EXPECT_TRUE(std::isnan(stored.groups[0].predictions[1].at.loss));
}

// Over simulated studies of 5 sizes x 3 seeds, the interval holds the true mean loss at a size between the runs
// and at 2x the largest about as often as it says.
TEST(ScalingPredict, TheIntervalCoversTheTrueLossInsideAndBeyondTheRuns) {
  constexpr int kStudies = 60;
  int inside = 0, beyond = 0;
  for (int i = 0; i < kStudies; ++i) {
    FitOptions options;
    options.law = LawKind::n;
    options.bootstrap = 100;
    options.seed = static_cast<std::uint64_t>(i);
    options.predict = {row(2e7), row(2e8)};
    const FitReport report = fit_runs(study(100 + static_cast<std::uint64_t>(i), 3, 0.01), options);
    const auto& p = report.groups[0].predictions;
    inside += p[0].lo <= true_loss(2e7) && true_loss(2e7) <= p[0].hi;
    beyond += p[1].lo <= true_loss(2e8) && true_loss(2e8) <= p[1].hi;
  }
  std::printf("--predict 95%% intervals over %d studies: inside the runs %d covered, at 2x the largest %d\n", kStudies,
              inside, beyond);
  EXPECT_GE(inside, kStudies * 85 / 100);
  EXPECT_GE(beyond, kStudies * 80 / 100);
}

TEST(ScalingPredict, RowsTheLawCannotPredictAreRefused) {
  FitOptions options;
  options.predict = {row(1e7)};
  options.law = LawKind::isoflop;
  EXPECT_THROW(fit_runs(study(1, 2, 0.01), options), std::invalid_argument);
  options.law = LawKind::n;
  options.predict[0].group = "unified";
  try {
    fit_runs(study(1, 2, 0.01), options);
    ADD_FAILURE() << "a row of a group the runs lack was predicted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 1 names group 'unified', which no run has"), std::string::npos) << e.what();
  }
}

TEST(ScalingPredict, ARowToPredictNeedsNoLoss) {
  const auto rows = parse_points_csv("params,tokens\n1e7,2e8\n", "p.csv", "", LossColumn::kOptional);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(std::isnan(rows[0].loss));
  const auto with = parse_points_csv("params,tokens,loss\n1e7,2e8,\n1e8,2e9,2.5\n", "p.csv", "", LossColumn::kOptional);
  EXPECT_TRUE(std::isnan(with[0].loss));
  EXPECT_EQ(with[1].loss, 2.5);
  EXPECT_THROW(parse_points_csv("params,tokens\n1e7,2e8\n", "p.csv"), std::invalid_argument) << "fitted rows need one";
  EXPECT_THROW(parse_points_csv("params,tokens,loss\n1e7,2e8,-1\n", "p.csv", "", LossColumn::kOptional),
               std::invalid_argument);
}

}  // namespace
}  // namespace gammalab
