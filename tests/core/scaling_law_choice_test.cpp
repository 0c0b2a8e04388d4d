// Choosing a law's form by prediction (core/scaling/law_choice.h), on runs drawn from a Chinchilla law with 0.1%
// noise: fitted without the largest size, chinchilla's form predicts that size within the noise, L(C) (which
// sees only the compute frontier, and predicts only its runs) several times worse, and L(N), blind to D, far
// worse; AICc agrees; isoflop, which predicts no losses, is scored by neither.
#include <cmath>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/law_choice.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

FitOptions quick(LawKind law) {
  FitOptions options;
  options.law = law;
  options.bootstrap = 0;
  options.holdout_largest = true;
  return options;
}

TEST(LawChoice, TheFormTheDataCameFromPredictsTheLargestSizeBest) {
  quiet_solver_logging();
  const std::vector<RunPoint> runs = test::chinchilla_runs(test::ChinchillaTruth{}, 6, 4, 0.001, 7);
  std::vector<FitReport> reports;
  for (LawKind law : {LawKind::n, LawKind::chinchilla, LawKind::c, LawKind::isoflop}) {
    reports.push_back(fit_runs(runs, quick(law)));
  }
  const LawChoice choice = choose_law(reports);
  ASSERT_EQ(choice.scores.size(), 4u);
  ASSERT_TRUE(choice.best);
  EXPECT_EQ(choice.scores[*choice.best].law, LawKind::chinchilla);
  ASSERT_TRUE(choice.best_aicc);
  EXPECT_EQ(choice.scores[*choice.best_aicc].law, LawKind::chinchilla);
  const LawScore& chinchilla = choice.scores[1];
  EXPECT_EQ(chinchilla.parameters, 5);
  EXPECT_EQ(chinchilla.holdout_groups, 1);
  EXPECT_EQ(chinchilla.configurations, 24) << "6 sizes x 4 token counts";
  EXPECT_EQ(chinchilla.holdout_runs, 4) << "the largest size's four token counts";
  EXPECT_LT(chinchilla.holdout_error, 0.003) << "within a few times the noise of 0.1% per run";
  EXPECT_GT(choice.scores[2].holdout_error, 2.0 * chinchilla.holdout_error) << "L(C) on the frontier only";
  EXPECT_LT(choice.scores[2].holdout_runs, 4) << "L(C) predicts only the held-out runs on the frontier";
  EXPECT_GT(choice.scores[0].holdout_error, 10.0 * chinchilla.holdout_error) << "L(N) cannot see D";
  EXPECT_EQ(choice.scores[0].parameters, 3);
  EXPECT_TRUE(std::isnan(choice.scores[3].holdout_error)) << "isoflop predicts no losses";
  EXPECT_TRUE(std::isnan(choice.scores[3].aicc));
  const nlohmann::json j = to_json(choice);
  EXPECT_EQ(j.at("best"), "chinchilla");
  EXPECT_EQ(j.at("scores")[3].at("law"), "isoflop");
  EXPECT_TRUE(j.at("scores")[3].at("holdout_error").is_null());
}

TEST(LawChoice, WithoutALargestSizeToPredictNoFormIsChosen) {
  quiet_solver_logging();
  // Three sizes: without the largest, two are left, too few for either form's holdout fit.
  const std::vector<RunPoint> runs = test::chinchilla_runs(test::ChinchillaTruth{}, 3, 4, 0.001, 7);
  const LawChoice choice = choose_law({fit_runs(runs, quick(LawKind::chinchilla)), fit_runs(runs, quick(LawKind::n))});
  EXPECT_FALSE(choice.best);
  EXPECT_TRUE(to_json(choice).at("best").is_null());
}

}  // namespace
}  // namespace gammalab
