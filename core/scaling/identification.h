#pragma once
// Whether the data identify a fitted parameter: every law is fitted in log space (e = ln E, exponents free), so
// a parameter whose best value lies on the edge of its domain (E at 0, an exponent at 0) shows up as a value
// run off towards the edge — E ≈ 1e-10 where L-BFGS stopped. Its bootstrap refits pile up there too, and
// their spread is no interval: such a parameter is "not identified (at bound)".
#include <string>
#include <string_view>
#include <vector>

#include "core/scaling/estimate.h"

namespace gammalab {

// E below 1e-4 of the smallest loss fitted (it changes no prediction by a hundredth of a percent: the law is a
// pure power law on these data, and where L-BFGS stopped on the way to E = 0 depends on its tolerances, 1e-10
// or 1e-5), or an exponent (alpha, beta, alpha_C) at or below 1e-6 (no decrease with scale).
inline constexpr double kNegligibleShare = 1e-4;
bool at_bound(std::string_view name, double value, double smallest_loss);

// Marks every estimate of `list` that is at bound: at_bound = true, lo and hi NaN. Returns their names. Marks
// reaches_bound on those whose value is inside the domain but whose interval's lower end is at its edge.
std::vector<std::string_view> mark_at_bound(std::vector<Estimate>& list, double smallest_loss);

// Ridges the bounds do not show, in words, one per finding: an exponent whose interval spans more than a factor
// of 2 (the sizes do not pin the law's slope: A and alpha trade off along a ridge), and a coefficient (A, B)
// below 1e-8 (its power term has collapsed: the law is E alone along that axis).
std::vector<std::string> ridge_warnings(const std::vector<Estimate>& list, const std::string& where);

}  // namespace gammalab
