#include "server/stream_slots.h"

#include <algorithm>

namespace gammalab {

std::size_t StreamSlots::limit_locked(const std::string& client) const {
  if (share_ == Share::kFixed) return per_client_;
  const auto mine = by_client_.find(client);
  const std::size_t others = by_client_.size() - (mine == by_client_.end() ? 0 : 1);
  return std::min(per_client_, std::max<std::size_t>(1, total_ / (others + 2)));
}

std::size_t StreamSlots::limit_for(const std::string& client) const {
  absl::MutexLock lock(&mutex_);
  return limit_locked(client);
}

std::shared_ptr<void> StreamSlots::acquire(const std::string& client) {
  {
    absl::MutexLock lock(&mutex_);
    const auto found = by_client_.find(client);
    const std::size_t mine = found == by_client_.end() ? 0 : found->second;
    if (open_ >= total_ || mine >= limit_locked(client)) return nullptr;
    ++by_client_[client];
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

std::size_t StreamSlots::held_by(const std::string& client) const {
  absl::MutexLock lock(&mutex_);
  const auto found = by_client_.find(client);
  return found == by_client_.end() ? 0 : found->second;
}

std::size_t StreamSlots::open() const {
  absl::MutexLock lock(&mutex_);
  return open_;
}

}  // namespace gammalab
