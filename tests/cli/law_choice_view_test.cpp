// `gammalab fit --law A --law B`'s comparison as printed (cli/law_choice_view.h): the table, which form predicts
// best and by how much, AICc's disagreement said, and no choice where nothing could be checked.
#include "cli/law_choice_view.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gammalab::cli {
namespace {

LawScore score(LawKind law, int parameters, double error, int runs, double aicc) {
  LawScore s;
  s.law = std::string(law_name(law));
  s.parameters = parameters;
  s.holdout_error = error;
  s.holdout_groups = std::isnan(error) ? 0 : 1;
  s.holdout_runs = runs;
  s.aicc = aicc;
  return s;
}

TEST(LawChoiceView, TheTableThenTheFormThatPredictsBestAndByHowMuch) {
  LawChoice choice;
  choice.scores = {score(LawKind::n, 3, 0.0594, 6, -74.67), score(LawKind::chinchilla, 5, 0.00456, 6, -120.5),
                   score(LawKind::c, 3, 0.0159, 2, -170.9), score(LawKind::isoflop, 2, std::nan(""), 0, std::nan(""))};
  choice.best = 1;
  choice.best_aicc = 2;
  EXPECT_EQ(law_choice_text(choice, 0),
            "law forms compared on the same runs: each fitted without the largest model size and scored by how far it "
            "misses that size's runs (mean |relative error|, averaged over groups); AICc on all sizes beside it\n"
            "  law         parameters  held-out error  runs predicted    AICc\n"
            "  ----------  ----------  --------------  --------------  ------\n"
            "  n                    3           5.94%               6  -74.67\n"
            "  chinchilla           5          0.456%               6  -120.5\n"
            "  c                    3           1.59%               2  -170.9\n"
            "  isoflop              2               -               0       -\n"
            "predicts best: chinchilla, missing the largest size by 0.456% against c's 1.59% (3.49× as far off)\n"
            "AICc prefers c: it describes the sizes it was fitted to better, and predicts the largest one worse\n");
}

// The same form twice (a law file beside its built-in twin): a tie is said as one, and an AICc that differs by
// rounding prefers neither.
TEST(LawChoiceView, ErrorsThatPrintTheSameAreATie) {
  LawChoice choice;
  choice.scores = {score(LawKind::chinchilla, 5, 0.008051, 72, -624.70), score(LawKind::chinchilla, 5, 0.008052, 72, -624.71)};
  choice.scores[1].law = "chinchilla (chinchilla.yaml)";
  choice.best = 0;
  choice.best_aicc = 1;
  const std::string text = law_choice_text(choice, 0);
  EXPECT_NE(text.find("predicts best: chinchilla, missing the largest size by 0.805%, as does chinchilla "
                      "(chinchilla.yaml)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("AICc prefers"), std::string::npos) << text;
}

TEST(LawChoiceView, NothingCheckedNothingChosen) {
  LawChoice choice;
  choice.scores = {score(LawKind::n, 3, std::nan(""), 0, -10.0)};
  const std::string text = law_choice_text(choice, 80);
  EXPECT_NE(text.find("no form could be checked"), std::string::npos) << text;
  EXPECT_EQ(text.find("predicts best"), std::string::npos) << text;
  for (std::size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    EXPECT_LE(end - at, 80u) << text.substr(at, end - at);
  }
}

}  // namespace
}  // namespace gammalab::cli
