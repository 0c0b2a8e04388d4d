#pragma once
// Background thread that sends jobs of lost workers back to the queue once their lease has expired. It starts
// by granting every active lease a grace from now (restart_grace_ms): the time the coordinator was down is not
// the workers' fault, and a worker that kept training reconnects and heartbeats within it. The grace is one
// lease timeout, but never less than a worker's reconnection (its longest backoff, two heartbeats) plus a
// margin for loaded machines: with a short lease (seconds) one timeout did not cover it, and back-to-back
// restarts cost healthy jobs an attempt.
#include <atomic>
#include <thread>

#include "server/store.h"

namespace gammalab {

// Worker reconnections were measured at up to about 6 s on 2 loaded cores: the margin is more than twice that.
inline constexpr std::int64_t kRestartGraceMarginMs = 15'000;
std::int64_t restart_grace_ms(std::int64_t lease_timeout_ms, std::int64_t heartbeat_interval_ms);

class LeaseReaper {
 public:
  // Grants the grace before its first pass.
  LeaseReaper(Store& store, std::int64_t lease_timeout_ms, std::int64_t heartbeat_interval_ms);
  ~LeaseReaper();  // stops and joins

 private:
  void run();
  Store& store_;
  std::int64_t lease_timeout_ms_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace gammalab
