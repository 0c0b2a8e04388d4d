// Coordinator: the alerts raised so far (core/alert.h; raised by server/alert_center.h and the store).
#include "server/coordinator/coordinator.h"

namespace gammalab::coordinator {

absl::StatusOr<Coordinator::AlertsAnswer> Coordinator::alerts(const std::string& sweep_id, std::int64_t after_id,
                                                              std::int64_t limit) {
  if (limit < 0 || static_cast<std::size_t>(limit) > kAlertsPerAnswer) {
    return absl::InvalidArgumentError("limit: from 0 (the most, " + std::to_string(kAlertsPerAnswer) + ") to " +
                                      std::to_string(kAlertsPerAnswer) + ", got " + std::to_string(limit));
  }
  if (after_id < 0) return absl::InvalidArgumentError("after_id: 0 or more, got " + std::to_string(after_id));
  std::string sweep;
  if (!sweep_id.empty()) {
    const absl::StatusOr<SweepRecord> found = find_sweep(sweep_id);
    if (!found.ok()) return found.status();
    sweep = found->id;
  }
  AlertsAnswer out;
  out.alerts = store_.alerts(sweep, after_id, limit == 0 ? kAlertsPerAnswer : static_cast<std::size_t>(limit),
                             out.truncated);
  return out;
}

}  // namespace gammalab::coordinator
