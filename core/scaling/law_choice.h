#pragma once
// Choosing a law's form by how well it predicts (`gammalab fit --law A --law B ...`): each form is fitted to the
// same runs, and scored by its leave-largest-out prediction error (fitted without the largest model size, the
// mean |relative error| of its predictions of that size's runs, averaged over the groups: the question a
// scaling law is asked, extrapolation to a larger model) and, beside it, by AICc on all sizes (Hurvich & Tsai
// 1989; Gaussian residuals of ln L at each configuration's mean loss, which counts each form's parameters). The
// form that predicts best is named, with the factor by which the next one misses more. A form that predicts
// no losses (isoflop) is scored by neither. Built-in laws and laws written as files (law_form_fit.h) are scored
// the same way and compared together.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scaling/fit_report.h"
#include "core/scaling/law_form_fit.h"

namespace gammalab {

struct LawScore {
  std::string law;               // the built-in law's name (law_name) or a law file's `law:`
  int parameters = 0;            // of one group's law
  double holdout_error = 0.0;    // mean over groups of the held-out runs' mean |relative error|; NaN without one
  int holdout_groups = 0;        // groups whose largest size was predicted
  int holdout_runs = 0;          // the runs predicted (law c: only those on the compute frontier, which it describes)
  double aicc = 0.0;             // summed over groups; NaN where a group has too few configurations
  int configurations = 0;        // (group, N, D) mean losses AICc saw
};

struct LawChoice {
  std::vector<LawScore> scores;    // in the order the forms were given
  std::optional<std::size_t> best;  // the lowest holdout_error; none when no form could be checked
  std::optional<std::size_t> best_aicc;
};

// The score of one built-in form's fit (fit_runs with holdout_largest), or of a law file's (fit_law_form with
// holdout_largest).
LawScore score_law(const FitReport& report);
LawScore score_law(const LawFormReport& report);
// The forms scored on the same runs, in the order given.
LawChoice choose_law(std::vector<LawScore> scores);
// `reports[i]` is the fit of one form (fit_runs with holdout_largest) on the same runs.
LawChoice choose_law(const std::vector<FitReport>& reports);

nlohmann::json to_json(const LawChoice& choice);

}  // namespace gammalab
