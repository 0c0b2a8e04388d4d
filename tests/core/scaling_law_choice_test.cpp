// Choosing a law's form by prediction (core/scaling/law_choice.h), on runs drawn from a Chinchilla law with 0.1%
// noise: fitted without the largest size, chinchilla's form predicts that size within the noise, L(C) (which
// sees only the compute frontier, and predicts only its runs) several times worse, and L(N), blind to D, far
// worse; AICc agrees; isoflop, which predicts no losses, is scored by neither.
#include <cmath>
#include <cstdio>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/law_choice.h"
#include "core/scaling/law_form_fit.h"
#include "tests/core/law_form_synthetic.h"
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
  EXPECT_EQ(choice.scores[*choice.best].law, "chinchilla");
  ASSERT_TRUE(choice.best_aicc);
  EXPECT_EQ(choice.scores[*choice.best_aicc].law, "chinchilla");
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

LawForm shipped(const std::string& name) {
  return read_law_form((std::filesystem::path(GAMMALAB_SOURCE_DIR) / "configs" / "laws" / (name + ".yaml")).string());
}

// Three sizes: without the largest, two are left, too few for any form's holdout fit, built in or written as a
// file (the files' twins decline as the built-ins do; a 3-parameter fit to two sizes once "predicted" the largest
// and won the comparison alone, on the demo's runs).
TEST(LawChoice, WithoutALargestSizeToPredictNoFormIsChosen) {
  quiet_solver_logging();
  const std::vector<RunPoint> runs = test::chinchilla_runs(test::ChinchillaTruth{}, 3, 4, 0.001, 7);
  LawFormSettings settings;
  settings.bootstrap = 0;
  settings.holdout_largest = true;
  const LawFormReport n_file = fit_law_form(shipped("n"), law_rows_from_runs(runs, {"params"}), settings);
  const LawFormReport chinchilla_file =
      fit_law_form(shipped("chinchilla"), law_rows_from_runs(runs, {"params", "tokens"}), settings);
  const LawChoice choice = choose_law({score_law(fit_runs(runs, quick(LawKind::chinchilla))),
                                       score_law(fit_runs(runs, quick(LawKind::n))), score_law(n_file),
                                       score_law(chinchilla_file)});
  for (const LawScore& score : choice.scores) EXPECT_EQ(score.holdout_runs, 0) << score.law;
  EXPECT_FALSE(choice.best);
  EXPECT_TRUE(to_json(choice).at("best").is_null());
}

// The case: runs that repeat their data. Chinchilla's form cannot express repetition, the data-constrained
// law (a file) can: compared together, the file's form predicts the largest size best, and chinchilla written as
// a file scores exactly as the built-in chinchilla on the same runs.
TEST(LawChoice, LawFilesAreScoredBesideTheBuiltInFormsAndTheRepetitionLawWinsOnRepeatedData) {
  quiet_solver_logging();
  const LawForm repetition = shipped("data-constrained");
  const std::map<std::string, double> truth = {{"E", 1.8}, {"A", 400.0}, {"alpha", 0.34}, {"B", 410.0},
                                               {"beta", 0.28}, {"Rstar", 5.0}};
  // params x (unique tokens, epochs), as the law's variables params, tokens, unique_tokens: the same token
  // budget reached by fresh and by repeated data, which Chinchilla's form must give one loss.
  LawRows rows;
  rows.variables = repetition.variables;
  std::vector<double> parameters;
  for (const auto& p : repetition.parameters) parameters.push_back(truth.at(p.name));
  std::mt19937_64 rng(11);
  std::normal_distribution<double> z(0.0, 0.002);
  std::vector<RunPoint> runs;
  for (double n : test::log_space(1e8, 3e9, 5)) {
    for (const auto& [u, epochs] : {std::pair{5e8, 1.0}, {5e8, 4.0}, {5e8, 16.0}, {4e9, 1.0}, {4e9, 4.0}}) {
      const double loss = law_form_loss(repetition, parameters, {n, u * epochs, u});
      for (std::uint64_t seed = 0; seed < 2; ++seed) {
        const double noisy = loss * std::exp(z(rng));
        rows.rows.push_back({{n, u * epochs, u}, noisy, "baseline", seed, ""});
        RunPoint run{n, u * epochs, 0.0, noisy, "baseline", ""};
        run.seed = seed;
        runs.push_back(run);
      }
    }
  }
  LawFormSettings settings;
  settings.bootstrap = 0;
  settings.holdout_largest = true;
  const LawFormReport chinchilla_file =
      fit_law_form(shipped("chinchilla"), law_rows_from_runs(runs, {"params", "tokens"}), settings);
  const LawChoice choice = choose_law({score_law(fit_runs(runs, quick(LawKind::chinchilla))),
                                       score_law(fit_law_form(repetition, rows, settings)), score_law(chinchilla_file)});
  ASSERT_TRUE(choice.best);
  for (const auto& s : choice.scores) std::printf("%s holdout %.5g over %d runs, AICc %.5g\n", s.law.c_str(), s.holdout_error, s.holdout_runs, s.aicc);
  EXPECT_EQ(choice.scores[*choice.best].law, "data_constrained");
  EXPECT_LT(choice.scores[1].holdout_error, 0.5 * choice.scores[0].holdout_error);
  EXPECT_EQ(choice.scores[1].holdout_runs, 10) << "the largest size's 5 budgets x 2 seeds";
  EXPECT_EQ(choice.scores[2].law, "chinchilla");
  EXPECT_NEAR(choice.scores[2].holdout_error, choice.scores[0].holdout_error, 1e-4 * choice.scores[0].holdout_error);
  EXPECT_NEAR(choice.scores[2].aicc, choice.scores[0].aicc, 1e-3);
  EXPECT_EQ(choice.scores[2].configurations, choice.scores[0].configurations);
}

}  // namespace
}  // namespace gammalab
