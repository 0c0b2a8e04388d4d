#pragma once
// Open dashboard event streams (GET /api/events), counted in all and per client address. Each stream holds one
// of the HTTP server's threads for as long as it is open (cpp-httplib serves a connection per thread), so
// without a bound 48 idle streams from one browser-facing client would leave no thread for any other
// request. A stream beyond either bound is refused with 503 and Retry-After; the rest of the pool stays free.
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace gammalab {

class EventStreamSlots {
 public:
  EventStreamSlots(std::size_t total, std::size_t per_client) : total_(total), per_client_(per_client) {}

  // A slot for `client`'s new stream, held until the returned handle is destroyed (with the stream); null
  // when `client` has per_client streams open or there are total in all.
  std::shared_ptr<void> acquire(const std::string& client) ABSL_LOCKS_EXCLUDED(mutex_);

  std::size_t open() const ABSL_LOCKS_EXCLUDED(mutex_);
  std::size_t total() const { return total_; }
  std::size_t per_client() const { return per_client_; }

 private:
  void release(const std::string& client) ABSL_LOCKS_EXCLUDED(mutex_);

  const std::size_t total_;
  const std::size_t per_client_;
  mutable absl::Mutex mutex_;
  std::size_t open_ ABSL_GUARDED_BY(mutex_) = 0;
  std::map<std::string, std::size_t> by_client_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace gammalab
