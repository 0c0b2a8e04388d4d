#include "worker/trainer/metrics_logger.h"

#include "core/metric.h"

namespace gammalab::trainer {

void MetricsLogger::keep(std::int64_t step, std::string line) {
  if (keep_lines_) kept_.push_back({step, std::move(line)});
}

void MetricsLogger::emit(std::int64_t step, std::string line) {
  // Past what the coordinator stores (every step of a run after its resume): printed and kept as it is, with
  // no parse of the line on the training loop's path.
  if (step > stored_.last_step) {
    out_ << line << '\n';
    keep(step, std::move(line));
    return;
  }
  const std::optional<std::string> part = unstored_part(line, stored_);
  if (part) out_ << *part << '\n';
  // A line stored in part is kept whole: the stored part is told apart again on a resume.
  if (part || step == stored_.last_step) keep(step, std::move(line));
}

void MetricsLogger::metrics(std::int64_t step, std::int64_t tokens, const std::map<std::string, double>& values) {
  emit(step, format_metric_line(step, tokens, values));
  out_.flush();
}

std::vector<std::string> MetricsLogger::unstored() const {
  std::vector<std::string> lines;
  lines.reserve(kept_.size());
  for (const Line& line : kept_) lines.push_back(line.text);
  return lines;
}

void MetricsLogger::replay(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    const auto points = parse_metric_line(line);
    if (!points || points->empty()) continue;  // a checkpoint keeps metric lines only: nothing else to print
    emit(points->front().step, line);
  }
  out_.flush();
}

void MetricsLogger::forget_stored_before(std::int64_t step) {
  stored_before_ = std::max(stored_before_, step);
  while (!kept_.empty() && kept_.front().step < step) kept_.pop_front();
}

void MetricsLogger::event(const nlohmann::json& object) {
  out_ << object.dump() << '\n';
  out_.flush();
}

}  // namespace gammalab::trainer
