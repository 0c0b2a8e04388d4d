#include "worker/trainer/metrics_logger.h"

#include "core/metric.h"

namespace gammalab::trainer {

void MetricsLogger::metrics(std::int64_t step, std::int64_t tokens, const std::map<std::string, double>& values) {
  out_ << format_metric_line(step, tokens, values) << '\n';
  out_.flush();
}

void MetricsLogger::event(const nlohmann::json& object) {
  out_ << object.dump() << '\n';
  out_.flush();
}

}  // namespace gammalab::trainer
