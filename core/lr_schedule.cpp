#include "core/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gammalab {

double wsd_decay_start(const ScheduleSpec& s, std::int64_t total) {
  return s.decay_steps ? double(total - *s.decay_steps) : s.decay_start * double(total);
}

double lr_multiplier(const ScheduleSpec& s, std::int64_t step, std::int64_t total) {
  if (s.warmup_steps > 0 && step <= s.warmup_steps) return double(step) / double(s.warmup_steps);
  if (s.kind == ScheduleKind::Constant) return 1.0;
  if (s.kind == ScheduleKind::Wsd) {
    const double decay_start = wsd_decay_start(s, total);
    if (double(step) <= decay_start) return 1.0;
    const double span = double(total) - std::max(decay_start, double(s.warmup_steps));
    if (span <= 0) return 0.0;
    return std::max(0.0, (double(total) - double(step)) / span);
  }
  // cosine
  const double span = double(total - s.warmup_steps);
  const double progress = span > 0 ? std::clamp(double(step - s.warmup_steps) / span, 0.0, 1.0) : 1.0;
  return s.min_lr_ratio + (1.0 - s.min_lr_ratio) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

}  // namespace gammalab
