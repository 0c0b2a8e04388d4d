// A resolved config's identity (core/sweep/config_hash.h).
#include "core/sweep/config_hash.h"

#include <cstdint>
#include <cstdio>

namespace gammalab {

std::string config_hash(const JobConfig& config) {
  // nlohmann::json keeps object keys sorted and prints doubles in shortest round-trip form, so this text
  // is the same on every platform and run.
  const std::string canonical = to_json(config).dump();
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : canonical) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

}  // namespace gammalab
