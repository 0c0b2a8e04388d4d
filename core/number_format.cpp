// Numbers for people (core/number_format.h).
#include "core/number_format.h"

#include <cmath>
#include <cstdio>

namespace gammalab {

namespace {

std::string non_finite(double v) { return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf"; }

}  // namespace

std::string fixed(double v, int decimals) {
  if (!std::isfinite(v)) return non_finite(v);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
  return buffer;
}

std::string significant(double v, int digits) {
  if (!std::isfinite(v)) return non_finite(v);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
  return buffer;
}

}  // namespace gammalab
