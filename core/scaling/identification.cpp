// Parameters at the edge of their domain (core/scaling/identification.h).
#include "core/scaling/identification.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
    if (!at_bound(e.name, e.value, smallest_loss)) {
      e.reaches_bound = std::isfinite(e.lo) && at_bound(e.name, std::max(e.lo, 0.0), smallest_loss);
      continue;
    }
    e.at_bound = true;
    e.lo = e.hi = std::numeric_limits<double>::quiet_NaN();
    names.push_back(e.name);
  }
  return names;
}

namespace {

bool is_exponent(std::string_view name) { return name == "alpha" || name == "beta" || name == "alpha_C"; }

std::string two_digits(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2g", v);
  return buffer;
}

}  // namespace

std::vector<std::string> ridge_warnings(const std::vector<Estimate>& list, const std::string& where) {
  std::vector<std::string> out;
  for (const auto& e : list) {
    if (e.at_bound) continue;
    if (is_exponent(e.name) && e.lo > 0.0 && std::isfinite(e.hi) && e.hi > 2.0 * e.lo) {
      out.push_back(where + ": " + e.name + "'s interval [" + two_digits(e.lo) + ", " + two_digits(e.hi) +
                    "] spans more than a factor of 2: the sizes do not pin the law's slope (its coefficient and "
                    "exponent trade off along a ridge)");
    }
    if ((e.name == "A" || e.name == "B") && std::isfinite(e.value) && e.value < 1e-8) {
      out.push_back(where + ": " + e.name + " = " + two_digits(e.value) +
                    " has collapsed: its power term is gone, and the law is E alone along that axis");
    }
  }
  return out;
}

}  // namespace gammalab
