#include "core/scaling/fit_options.h"

#include <cmath>

namespace gammalab {

LawKind default_law(const std::vector<RunPoint>& runs) {
  if (runs.size() < 3) return LawKind::n;
  double mx = 0.0, my = 0.0;
  for (const auto& r : runs) {
    mx += std::log(r.params);
    my += std::log(r.tokens);
  }
  const double n = static_cast<double>(runs.size());
  mx /= n;
  my /= n;
  double sxx = 0.0, syy = 0.0, sxy = 0.0;
  for (const auto& r : runs) {
    const double x = std::log(r.params) - mx, y = std::log(r.tokens) - my;
    sxx += x * x;
    syy += y * y;
    sxy += x * y;
  }
  if (!(syy > 1e-12 * n)) return LawKind::n;  // one token budget for every run
  if (!(sxx > 1e-12 * n)) return LawKind::chinchilla;
  const double corr = sxy / std::sqrt(sxx * syy);
  return std::abs(corr) < 0.99 ? LawKind::chinchilla : LawKind::n;
}

}  // namespace gammalab
