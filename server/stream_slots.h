#pragma once
// Open long-lived streams, counted in all and per client address: the dashboard's event streams (GET
// /api/events) and the Coordinator's WatchSweep calls. A waiting event stream holds no thread
// (http/http_server.h) but holds a connection and a place in the wake-up list; a watch holds a gRPC thread and
// reads its sweep every round. Without a bound, one client could hold every connection, or start threads
// without end. A stream beyond either bound is refused (503 and Retry-After, RESOURCE_EXHAUSTED).
#include <cstddef>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

namespace gammalab {

class StreamSlots {
 public:
  // kFixed: every client may hold per_client. kFairShare: besides, a client may hold at most
  // total / (k + 2) while k other clients hold some, so that a newcomer always finds a share free beside any
  // number of greedy clients (k holders of total / (k + 1) each would leave it nothing); per_client stays the
  // upper bound. Streams end on their own (a deadline, an idle limit), so holders above a newly lowered share
  // come down to it as theirs end.
  enum class Share { kFixed, kFairShare };
  StreamSlots(std::size_t total, std::size_t per_client, Share share = Share::kFixed)
      : total_(total), per_client_(per_client), share_(share) {}

  // A slot for `client`'s new stream, held until the returned handle is destroyed (with the stream); null
  // when `client` holds its bound (limit_for) or there are total in all.
  std::shared_ptr<void> acquire(const std::string& client) ABSL_LOCKS_EXCLUDED(mutex_);

  // How many streams `client` may hold now: per_client, or under kFairShare its share when that is less.
  std::size_t limit_for(const std::string& client) const ABSL_LOCKS_EXCLUDED(mutex_);
  std::size_t open() const ABSL_LOCKS_EXCLUDED(mutex_);
  std::size_t held_by(const std::string& client) const ABSL_LOCKS_EXCLUDED(mutex_);
  std::size_t total() const { return total_; }
  std::size_t per_client() const { return per_client_; }

 private:
  void release(const std::string& client) ABSL_LOCKS_EXCLUDED(mutex_);
  std::size_t limit_locked(const std::string& client) const ABSL_SHARED_LOCKS_REQUIRED(mutex_);

  const std::size_t total_;
  const std::size_t per_client_;
  const Share share_;
  mutable absl::Mutex mutex_;
  std::size_t open_ ABSL_GUARDED_BY(mutex_) = 0;
  std::map<std::string, std::size_t> by_client_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace gammalab
