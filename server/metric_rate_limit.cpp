#include "server/metric_rate_limit.h"

#include <algorithm>

namespace gammalab {

bool MetricRateLimit::admit(const std::string& job_id, std::size_t points, Clock::time_point now) {
  absl::MutexLock lock(&mutex_);
  if (now - last_sweep_ > std::chrono::seconds(10)) forget_full(now);
  auto [it, added] = buckets_.try_emplace(job_id, Bucket{burst_, now});
  Bucket& bucket = it->second;
  const double elapsed = std::chrono::duration<double>(now - bucket.updated).count();
  if (elapsed > 0) bucket.points = std::min(burst_, bucket.points + elapsed * per_second_);
  bucket.updated = std::max(bucket.updated, now);
  if (static_cast<double>(points) > bucket.points) return false;
  bucket.points -= static_cast<double>(points);
  return true;
}

std::size_t MetricRateLimit::tracked_jobs() const {
  absl::MutexLock lock(&mutex_);
  return buckets_.size();
}

void MetricRateLimit::forget_full(Clock::time_point now) {
  last_sweep_ = now;
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const double elapsed = std::chrono::duration<double>(now - it->second.updated).count();
    if (it->second.points + elapsed * per_second_ >= burst_) {
      it = buckets_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace gammalab
