#include "server/lease_reaper.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "core/limits.h"
#include "server/prometheus_metrics.h"

namespace gammalab {

std::int64_t restart_grace_ms(std::int64_t lease_timeout_ms, std::int64_t heartbeat_interval_ms) {
  return std::max(lease_timeout_ms,
                  limits::kWorkerMaxReconnectBackoffMs + 2 * heartbeat_interval_ms + kRestartGraceMarginMs);
}

LeaseReaper::LeaseReaper(Store& store, std::int64_t lease_timeout_ms, std::int64_t heartbeat_interval_ms)
    : store_(store), lease_timeout_ms_(lease_timeout_ms) {
  const std::int64_t grace = restart_grace_ms(lease_timeout_ms, heartbeat_interval_ms);
  if (int n = store_.grant_lease_grace(grace); n > 0) {
    spdlog::info("{} lease(s) from before the start get {} ms for their workers to reconnect", n, grace);
  }
  thread_ = std::thread([this] { run(); });
}

LeaseReaper::~LeaseReaper() {
  stop_ = true;
  thread_.join();
}

void LeaseReaper::run() {
  // Check a few times per timeout so an expired lease is noticed within ~25% of the timeout.
  const auto period = std::chrono::milliseconds(std::clamp<std::int64_t>(lease_timeout_ms_ / 4, 50, 1000));
  while (!stop_) {
    try {
      const int n = store_.expire_leases();
      CoordinatorMetrics::instance().leases_expired(n);
      if (n > 0) spdlog::warn("{} expired lease(s) requeued", n);
    } catch (const std::exception& e) {
      spdlog::error("lease expiry failed: {}", e.what());
    }
    for (auto waited = std::chrono::milliseconds(0); waited < period && !stop_;
         waited += std::chrono::milliseconds(50)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

}  // namespace gammalab
