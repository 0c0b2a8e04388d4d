#include "server/stream_slots.h"

namespace gammalab {

std::shared_ptr<void> StreamSlots::acquire(const std::string& client) {
  {
    absl::MutexLock lock(&mutex_);
    std::size_t& mine = by_client_[client];
    if (open_ >= total_ || mine >= per_client_) {
      if (mine == 0) by_client_.erase(client);
      return nullptr;
    }
    ++mine;
    ++open_;
  }
  // The handle's deleter gives the slot back; it owns nothing else (the pointer is a non-null marker).
  return std::shared_ptr<void>(this, [client](StreamSlots* slots) { slots->release(client); });
}

void StreamSlots::release(const std::string& client) {
  absl::MutexLock lock(&mutex_);
  --open_;
  auto it = by_client_.find(client);
  if (it != by_client_.end() && --it->second == 0) by_client_.erase(it);
}

std::size_t StreamSlots::open() const {
  absl::MutexLock lock(&mutex_);
  return open_;
}

}  // namespace gammalab
