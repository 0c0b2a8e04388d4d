// Numbers for people (core/number_format.h).
#include "core/number_format.h"

#include <cmath>
#include <cstdio>

namespace gammalab {

std::string non_finite_text(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return non_finite_text(v);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string significant(double v, int digits) {
  if (!std::isfinite(v)) return non_finite_text(v);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  return buffer;
}

}  // namespace gammalab
