#pragma once
// Metric lines (core/metric.h format) and event lines on stdout, one JSON object per line, flushed per line.
#include <map>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

namespace gammalab::trainer {

class MetricsLogger {
 public:
  explicit MetricsLogger(std::ostream& out) : out_(out) {}
  void metrics(std::int64_t step, std::int64_t tokens, const std::map<std::string, double>& values);
  void event(const nlohmann::json& object);  // must not have a "metrics" key

 private:
  std::ostream& out_;
};

}  // namespace gammalab::trainer
