#pragma once
// Background thread that sends jobs of lost workers back to the queue once their lease has expired. It starts
// by granting every active lease one lease timeout from now: the time the coordinator was down is not the
// workers' fault, and a worker that kept training reconnects and heartbeats well within it.
#include <atomic>
#include <thread>

#include "server/store.h"

namespace gammalab {

class LeaseReaper {
 public:
  LeaseReaper(Store& store, std::int64_t lease_timeout_ms);  // grants the grace before its first pass
  ~LeaseReaper();  // stops and joins

 private:
  void run();
  Store& store_;
  std::int64_t lease_timeout_ms_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace gammalab
