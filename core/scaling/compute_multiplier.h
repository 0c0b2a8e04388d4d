#pragma once
// Compute-efficiency multiplier of a variant over a baseline, from their L(C) frontiers:
//   m(C) = C_b(L_v(C)) / C,   C_b(L) = (A_b / (L - E_b))^(1/alpha_b)
// i.e. how much more compute the baseline needs to reach the loss the variant reaches with budget C.
// With shared E and alpha the ratio is constant: m = (A_b / A_v)^(1/alpha).
#include <optional>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab {

struct FrontierLaw {
  double E = 0.0;
  double A = 0.0;
  double alpha = 0.0;  // L(C) = E + A·C^-alpha
};

// The L(C) frontier of a fit: law c directly; chinchilla via its compute-optimal envelope under C = 6·N·D,
// L*(C) = E + A_C·C^-alpha_C with alpha_C = alpha·beta/(alpha+beta). nullopt for laws n and isoflop, and
// when the parameters are not finite or the exponent is not positive.
std::optional<FrontierLaw> frontier_law(const LawFit& fit);

double frontier_loss(const FrontierLaw& law, double compute);
// Compute the law needs to reach `loss`; +inf when loss <= E (unreachable).
double compute_to_reach(const FrontierLaw& law, double loss);
// m(C) as above; +inf when the baseline cannot reach the variant's loss at any compute.
double compute_multiplier(const FrontierLaw& baseline, const FrontierLaw& variant, double compute);
// The constant multiplier of two frontiers with common E and alpha.
double constant_multiplier(double A_baseline, double A_variant, double alpha);

// The budgets multipliers are read at by default: whole decades inside [lo, hi]; the geometric middle if the
// range spans none; none for an empty range.
std::vector<double> decade_budgets(double lo, double hi);

}  // namespace gammalab
