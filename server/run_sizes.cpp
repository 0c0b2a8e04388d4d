#include "server/run_sizes.h"

namespace gammalab {

RunSize RunSizes::of(const std::string& config_hash, const std::string& config_json) {
  if (config_hash.empty()) return run_size(config_json);
  {
    absl::MutexLock lock(&mutex_);
    if (auto it = sizes_.find(config_hash); it != sizes_.end()) return it->second;
  }
  RunSize size = run_size(config_json);  // outside the lock: other readers go on meanwhile
  absl::MutexLock lock(&mutex_);
  if (sizes_.size() >= kCapacity) sizes_.clear();
  sizes_.try_emplace(config_hash, size);
  return size;
}

std::size_t RunSizes::kept() {
  absl::MutexLock lock(&mutex_);
  return sizes_.size();
}

}  // namespace gammalab
