#pragma once
// The runs table's sizes per config (proto/dashboard_json.h's RunSize), kept across reads: a job's config never
// changes, and parsing each config to count its parameters was most of the cost of a sweep's /runs, which
// every open dashboard reads again every few seconds.
#include <cstddef>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "proto/dashboard_json.h"

namespace gammalab {

class RunSizes {
 public:
  // Enough for the jobs of every sweep a coordinator shows at once; past it the memory starts afresh, so
  // it stays bounded (a few tens of MB) whatever the database holds.
  static constexpr std::size_t kCapacity = 100'000;

  // The size of a job's config, kept from an earlier call with the same config hash or read now. A job
  // without a config hash is read every time.
  RunSize of(const std::string& config_hash, const std::string& config_json);

  std::size_t kept();

 private:
  absl::Mutex mutex_;
  absl::flat_hash_map<std::string, RunSize> sizes_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace gammalab
