#pragma once
// The profile of one parameter of a law written as a file (core/scaling/law_form.h): the parameter is fixed on
// a grid around its estimate, every other parameter refitted, and the range whose objective lies within a
// tolerance of the best is the range the fit cannot tell apart. A flat direction (a ridge, a parameter the data
// do not identify) shows as a range open at the grid's edge or at a bound. As the built-in profile
// (core/scaling/profile.h): with the Huber delta scaled to the noise the objective is about sum r²/2, so the
// profile-likelihood cutoff chi²_1(confidence)/2 becomes sigma² · chi²_1(confidence)/2, sigma² =
// 2 · objective / (points - parameters) at the best fit.
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/law_form.h"
#include "core/scaling/law_form_objective.h"

namespace gammalab {

struct LawFormProfile {
  std::string parameter;
  double lo = 0.0, hi = 0.0;  // the range's ends, on the parameter's own scale
  bool open_lo = false;       // the range reaches the grid's lower edge (or the lower bound): flat beyond it
  bool open_hi = false;
  double tolerance = 0.0;     // the objective's allowed rise
};

// Grid: 41 values over ln p̂ ± ln 16 (a log parameter) or p̂ ± 4·max(|p̂|, 1e-3), inside the bounds, walked
// outward from the estimate, each refit warm-started from the estimate and from its inner neighbour's optimum
// at the fit's delta. A closed end is then found between the last value within the tolerance and the first
// beyond it by bracketed root finding (TOMS 748) on the objective's rise. nullopt when there are no more points
// than parameters.
std::optional<LawFormProfile> profile_law_parameter(const LawForm& form, const Points& points, double delta,
                                                    const std::vector<double>& z_hat, double objective,
                                                    std::size_t index, double confidence, int max_iterations);

}  // namespace gammalab
