#pragma once
// A resolved config's identity: equal configs, equal hashes, on every platform and run. A resubmitted sweep
// reuses a finished job whose hash it shares.
#include <string>

#include "core/job_config.h"

namespace gammalab {

// Content hash of a resolved config: hex of a 64-bit FNV-1a over its canonical JSON.
std::string config_hash(const JobConfig& config);

}  // namespace gammalab
