#pragma once
// How many metric points each job may report, as a token bucket per job: `burst` points at once, refilled at
// `per_second`. A real trainer reports a few metrics every few steps, orders of magnitude below the default;
// the limit is for a worker (or whoever holds a worker token) that floods one job's curve and, through it,
// the database every reader shares. A refused report gets RESOURCE_EXHAUSTED, which a worker's relay keeps
// and resends later (worker/metric_relay.h), so a burst over the limit delays points but loses none.
#include <chrono>
#include <cstddef>
#include <string>
#include <unordered_map>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace gammalab {

class MetricRateLimit {
 public:
  using Clock = std::chrono::steady_clock;
  MetricRateLimit(double per_second, double burst) : per_second_(per_second), burst_(burst) {}

  // Takes `points` from the job's bucket at `now`; false (and nothing taken) when it holds fewer.
  bool admit(const std::string& job_id, std::size_t points, Clock::time_point now) ABSL_LOCKS_EXCLUDED(mutex_);

  std::size_t tracked_jobs() const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  struct Bucket {
    double points;
    Clock::time_point updated;
  };
  // Buckets that have refilled to `burst` are forgotten (a fresh one is the same), so memory follows the jobs
  // that reported in the last burst / per_second seconds, not every id ever sent.
  void forget_full(Clock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  const double per_second_;
  const double burst_;
  mutable absl::Mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(mutex_);
  Clock::time_point last_sweep_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace gammalab
