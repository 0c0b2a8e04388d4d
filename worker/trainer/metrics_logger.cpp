#include "worker/trainer/metrics_logger.h"

#include "core/metric.h"

namespace gammalab::trainer {

void MetricsLogger::metrics(std::int64_t step, std::int64_t tokens, const std::map<std::string, double>& values) {
  history_.push_back(format_metric_line(step, tokens, values));
  out_ << history_.back() << '\n';
  out_.flush();
}

void MetricsLogger::replay(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    history_.push_back(line);
    out_ << line << '\n';
  }
  out_.flush();
}

void MetricsLogger::event(const nlohmann::json& object) {
  out_ << object.dump() << '\n';
  out_.flush();
}

}  // namespace gammalab::trainer
