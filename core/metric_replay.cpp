#include "core/metric_replay.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "core/limits.h"
#include "core/metric.h"
#include "core/metric_check.h"

namespace gammalab {

std::string stored_metrics_error(const StoredMetrics& stored) {
  const auto& names = stored.names_at_last_step;
  if (names.size() > limits::kMaxMetricNames) {
    return "stored metrics: " + std::to_string(names.size()) + " names at the last step, more than the limit of " +
           std::to_string(limits::kMaxMetricNames);
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    // The store holds only points that passed metric_point_error: a known metric at a step in range.
    if (std::string error = metric_point_error({stored.last_step, 0, names[i], 0.0}); !error.empty()) {
      return "stored metrics: " + error;
    }
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<std::ptrdiff_t>(i)) {
      return "stored metrics: metric '" + names[i] + "' named twice";
    }
  }
  if (stored.last_step < 0 || stored.last_step > limits::kMaxSteps) {
    return "stored metrics: last step " + std::to_string(stored.last_step) + " is outside [0, " +
           std::to_string(limits::kMaxSteps) + "]";
  }
  return "";
}

std::optional<std::string> unstored_part(const std::string& line, const StoredMetrics& stored) {
  const auto points = parse_metric_line(line);
  if (!points || points->empty()) throw std::invalid_argument("not a metric line: " + line.substr(0, 200));
  const std::int64_t step = points->front().step;
  if (step > stored.last_step) return line;
  if (step < stored.last_step) return std::nullopt;
  std::map<std::string, double> rest;
  for (const MetricPoint& p : *points) {
    const auto& names = stored.names_at_last_step;
    if (std::find(names.begin(), names.end(), p.name) == names.end()) rest.emplace(p.name, p.value);
  }
  if (rest.empty()) return std::nullopt;
  if (rest.size() == points->size()) return line;
  return format_metric_line(step, points->front().tokens, rest);
}

}  // namespace gammalab
