// The CLI's numbers (cli/number_text.h).
#include "cli/number_text.h"

#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace gammalab::cli {

std::string scientific(double v, int decimals) {
  if (!std::isfinite(v)) return non_finite_text(v);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*e", decimals, v);
  return buffer;
}

std::string round_trip_text(double v) {
  if (!std::isfinite(v)) return non_finite_text(v);
  return nlohmann::json(v).dump();
}

std::string percent(double p) { return std::to_string(static_cast<int>(std::lround(100.0 * p))) + "%"; }

}  // namespace gammalab::cli
