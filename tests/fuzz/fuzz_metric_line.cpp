// Fuzz target: the JSON metric line gammalab-train prints and the worker parses (core/metric.h), and the
// coordinator's check of each point (core/metric_check.h). A line is a metric line, not one, or malformed
// (std::invalid_argument); nothing else. Every parsed point formats back to a line that parses to the same
// points (NaN compared as NaN), so what the worker relays is what the trainer meant.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

#include "core/metric.h"
#include "core/metric_check.h"

namespace {

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string line(reinterpret_cast<const char*>(data), size);
  std::optional<std::vector<gammalab::MetricPoint>> points;
  try {
    points = gammalab::parse_metric_line(line);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (!points || points->empty()) return 0;
  std::map<std::string, double> values;
  for (const gammalab::MetricPoint& p : *points) {
    (void)gammalab::metric_point_error(p);
    if (p.step != points->front().step || p.tokens != points->front().tokens) std::abort();  // one line, one step
    values[p.name] = p.value;
  }
  const auto again = gammalab::parse_metric_line(gammalab::format_metric_line(points->front().step, points->front().tokens, values));
  if (!again || again->size() != values.size()) std::abort();
  for (const gammalab::MetricPoint& p : *again) {
    const auto it = values.find(p.name);
    if (it == values.end() || !same_value(it->second, p.value)) std::abort();
  }
  return 0;
}
