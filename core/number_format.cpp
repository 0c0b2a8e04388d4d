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

std::string count_text(double n) {
  if (!std::isfinite(n)) return non_finite_text(n);
  const double a = std::abs(n);
  if (a >= 1e12) return fixed(n / 1e12, 2) + "T";
  if (a >= 1e9) return fixed(n / 1e9, 2) + "B";
  if (a >= 1e6) return fixed(n / 1e6, 2) + "M";
  if (a >= 1e3) return fixed(n / 1e3, 1) + "k";
  return fixed(n, 0);
}

}  // namespace gammalab
