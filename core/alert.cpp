// The loss-spike rule and the bounded message of an alert (see alert.h).
#include "core/alert.h"

#include <cmath>
#include <numeric>

#include "core/metric_names.h"
#include "core/number_format.h"
#include "core/utf8_text.h"

namespace gammalab {

std::optional<std::string> LossSpikeWatch::add(std::int64_t step, double value) {
  if (step <= last_step_ || !std::isfinite(value)) return std::nullopt;
  last_step_ = step;
  std::optional<std::string> spike;
  if (window_.size() >= kMinPoints) {
    last_mean_ = std::accumulate(window_.begin(), window_.end(), 0.0) / static_cast<double>(window_.size());
    if (value > ratio_ * last_mean_) {
      spike = std::string(metric_names::kTrainLoss) + " at step " + std::to_string(step) + " is " +
              significant(value, 5) + ", " + significant(value / last_mean_, 3) + "× the mean of its previous " +
              std::to_string(window_.size()) + " points (" + significant(last_mean_, 5) + ")";
    }
  }
  window_.push_back(value);
  if (window_.size() > kWindow) window_.pop_front();
  return spike;
}

std::string alert_message_line(std::string_view text) {
  const std::string_view first = text.substr(0, text.find('\n'));
  return utf8_without_controls(utf8_head(first, kMaxAlertMessageBytes));
}

}  // namespace gammalab
