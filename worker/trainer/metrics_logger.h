#pragma once
// Metric lines (core/metric.h format) and event lines on stdout, one JSON object per line, flushed per line.
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gammalab::trainer {

class MetricsLogger {
 public:
  explicit MetricsLogger(std::ostream& out) : out_(out) {}
  void metrics(std::int64_t step, std::int64_t tokens, const std::map<std::string, double>& values);
  void event(const nlohmann::json& object);  // must not have a "metrics" key
  // Every metric line printed so far (what a checkpoint keeps), and printing them again after a resume.
  const std::vector<std::string>& history() const { return history_; }
  void replay(const std::vector<std::string>& lines);

 private:
  std::ostream& out_;
  std::vector<std::string> history_;
};

}  // namespace gammalab::trainer
