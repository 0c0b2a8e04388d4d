#include "core/scaling/compute_multiplier.h"

#include <cmath>
#include <limits>

namespace gammalab {

std::optional<FrontierLaw> frontier_law(const LawFit& fit) {
  FrontierLaw law;
  law.E = fit_value(fit, "E");
  if (fit.kind == LawKind::c) {
    law.A = fit_value(fit, "A");
    law.alpha = fit_value(fit, "alpha");
  } else if (fit.kind == LawKind::chinchilla) {
    law.A = fit_value(fit, "A_C");
    law.alpha = fit_value(fit, "alpha_C");
  } else {
    return std::nullopt;
  }
  if (!std::isfinite(law.E) || !std::isfinite(law.A) || !std::isfinite(law.alpha) || !(law.alpha > 0.0) ||
      !(law.A > 0.0)) {
    return std::nullopt;
  }
  return law;
}

double frontier_loss(const FrontierLaw& law, double compute) { return law.E + law.A * std::pow(compute, -law.alpha); }

double compute_to_reach(const FrontierLaw& law, double loss) {
  if (!(loss > law.E)) return std::numeric_limits<double>::infinity();
  // Solve in log space: C = exp((ln A - ln(L - E)) / alpha), which stays finite for large exponents longer.
  return std::exp((std::log(law.A) - std::log(loss - law.E)) / law.alpha);
}

double compute_multiplier(const FrontierLaw& baseline, const FrontierLaw& variant, double compute) {
  return compute_to_reach(baseline, frontier_loss(variant, compute)) / compute;
}

double constant_multiplier(double A_baseline, double A_variant, double alpha) {
  return std::exp((std::log(A_baseline) - std::log(A_variant)) / alpha);
}

std::vector<double> decade_budgets(double lo, double hi) {
  if (!(lo <= hi)) return {};
  std::vector<double> budgets;
  for (int k = static_cast<int>(std::ceil(std::log10(lo))); k <= static_cast<int>(std::floor(std::log10(hi))); ++k) {
    budgets.push_back(std::pow(10.0, k));
  }
  if (budgets.empty()) budgets.push_back(std::sqrt(lo * hi));
  return budgets;
}

}  // namespace gammalab
