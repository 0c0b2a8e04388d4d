// The token multiplier at a fixed model size (core/scaling/token_multiplier.h).
#include "core/scaling/token_multiplier.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/scaling/local_multiplier.h"

namespace gammalab {

std::vector<TokenReading> token_readings(const ComparisonPlan& plan, const std::vector<double>& base_means,
                                         const std::vector<double>& variant_means) {
  const std::size_t families =
      plan.families.empty() ? 0 : *std::max_element(plan.families.begin(), plan.families.end()) + 1;
  std::vector<TokenReading> out(families);
  for (std::size_t f = 0; f < families; ++f) {
    // The baseline's budgets at this size, as a curve in ln D (compute is proportional to D at a fixed size).
    std::vector<CurvePoint> points;
    for (std::size_t k = 0; k < plan.base_cells.size(); ++k) {
      if (plan.families[k] == f) points.push_back({std::log(plan.base_cells[k].tokens), base_means[k]});
    }
    TokenReading& r = out[f];
    r.budgets = static_cast<int>(points.size());
    if (points.size() < 2) {
      r.log_multiplier = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    const BaselineCurve curve(std::move(points));
    double sum = 0.0;
    for (std::size_t k = 0; k < plan.variant_cells.size(); ++k) {
      if (plan.families[k] != f) continue;
      const double at = std::log(plan.variant_cells[k].tokens);
      const LocalLog reach = curve.log_compute_to_reach(variant_means[k], at);
      sum += reach.value - at;  // NaN where the curve is flat: the size then has no value
      r.budgets_inside += reach.inside ? 1 : 0;
    }
    r.log_multiplier = sum / r.budgets;
  }
  return out;
}

double pooled_token_log(const std::vector<TokenReading>& readings) {
  double sum = 0.0;
  int sizes = 0;
  for (const TokenReading& r : readings) {
    if (r.budgets < 2) continue;
    sum += r.log_multiplier;
    ++sizes;
  }
  return sizes > 0 ? sum / sizes : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace gammalab
