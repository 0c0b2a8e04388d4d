#pragma once
// Choosing a law's form by how well it predicts (`gammalab fit --law A --law B ...`): each form is fitted to the
// same runs, and scored by its leave-largest-out prediction error (fitted without the largest model size, the
// mean |relative error| of its predictions of that size's runs, averaged over the groups: the question a
// scaling law is asked, extrapolation to a larger model) and, beside it, by AICc on all sizes (Hurvich & Tsai
// 1989; Gaussian residuals of ln L at each configuration's mean loss, which counts each form's parameters). The
// form that predicts best is named, with the factor by which the next one misses more. A form that predicts
// no losses (isoflop) is scored by neither.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scaling/fit_report.h"

namespace gammalab {

struct LawScore {
  LawKind law = LawKind::n;
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

// `reports[i]` is the fit of one form (fit_runs with holdout_largest) on the same runs.
LawChoice choose_law(const std::vector<FitReport>& reports);

nlohmann::json to_json(const LawChoice& choice);

}  // namespace gammalab
