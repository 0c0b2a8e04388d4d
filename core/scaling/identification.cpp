// Parameters at the edge of their domain (core/scaling/identification.h).
#include "core/scaling/identification.h"

#include <cmath>
#include <limits>

namespace gammalab {

bool at_bound(std::string_view name, double value, double smallest_loss) {
  if (!std::isfinite(value)) return false;
  if (name == "E") return value < kNegligibleShare * smallest_loss;
  if (name == "alpha" || name == "beta" || name == "alpha_C") return value <= 1e-6;
  return false;
}

std::vector<std::string_view> mark_at_bound(std::vector<Estimate>& list, double smallest_loss) {
  std::vector<std::string_view> names;
  for (auto& e : list) {
    if (!at_bound(e.name, e.value, smallest_loss)) continue;
    e.at_bound = true;
    e.lo = e.hi = std::numeric_limits<double>::quiet_NaN();
    names.push_back(e.name);
  }
  return names;
}

}  // namespace gammalab
