#pragma once
// The profile of the constant multiplier in the shared-exponent fit of two L(C) frontiers: the multiplier m is
// fixed on a grid, the other parameters refitted, and the range of m whose objective lies within a tolerance of
// the best is the range the fit cannot tell apart. A flat direction (an objective that does not change with m)
// shows as a range that reaches the grid's edge.
// With m fixed the two frontiers are one law: the variant at C is the baseline at m·C, so the refit is a
// law-c fit of the baseline's points and the variant's points with their compute scaled by m.
// Tolerance: with the Huber delta scaled to the noise the objective is about sum r²/2, the negative
// log-likelihood times sigma², so the profile-likelihood cutoff chi²_1(confidence)/2 becomes
// sigma² · chi²_1(confidence)/2, sigma² = 2 · objective / (points - 4) at the best fit.
#include <optional>
#include <vector>

#include "core/scaling/fit.h"
#include "core/scaling/law.h"

namespace gammalab {

struct ProfileRange {
  double lo = 0.0, hi = 0.0;  // multipliers at the ends of the range
  bool open_lo = false;       // the range reaches the grid's lower edge: flat beyond it
  bool open_hi = false;
  double tolerance = 0.0;     // the objective's allowed rise
  bool open() const { return open_lo || open_hi; }
};

// Grid: 81 values of ln m spaced evenly over ln m̂ ± ln 8 (m̂ the shared fit's, or 1 if it has none in
// [1e-3, 1e3]); each refit starts from the shared fit's (e, alpha, a_baseline) and from the previous grid
// point's optimum, at the shared fit's delta. A closed end is then found between the grid's last value within
// the tolerance and its first beyond, by bracketed root finding (TOMS 748) on the objective's rise; an open end
// stays at the grid's edge. nullopt with fewer than 5 points.
std::optional<ProfileRange> profile_multiplier(const std::vector<RunPoint>& base_frontier,
                                               const std::vector<RunPoint>& variant_frontier, const LawFit& shared,
                                               const FitSettings& settings, double confidence);

}  // namespace gammalab
