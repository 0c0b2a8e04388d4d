#pragma once
// Metric points and the JSON line format in which gammalab-train prints them on stdout:
//   {"step":120,"tokens":491520,"metrics":{"train/loss":3.21,"lr":0.0006}}
// Non-finite values are written as the strings "nan", "inf", "-inf" (JSON has no such numbers).
// Any other stdout line (no "metrics" object) is not a metric line and is left to the job log.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gammalab {

struct MetricPoint {
  std::int64_t step = 0;
  std::int64_t tokens = 0;
  std::string name;
  double value = 0.0;
  bool operator==(const MetricPoint&) const = default;
};

// Returns the points of one metric line, or nullopt if the line is not a metric line.
// Throws std::invalid_argument for a line that claims to be one but is malformed.
std::optional<std::vector<MetricPoint>> parse_metric_line(std::string_view line);

std::string format_metric_line(std::int64_t step, std::int64_t tokens, const std::map<std::string, double>& values);

}  // namespace gammalab
