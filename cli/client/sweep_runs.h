#pragma once
// Hook for `gammalab fit SWEEP`: final losses of a sweep's finished jobs, fetched from the coordinator.
#include <string>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab::cli {

// One RunPoint per finished job: params, tokens, final loss, compute if known (else 0 = 6·N·D), group = the
// value of the job's `group_by` field (e.g. a variant name), label = job name. Throws on RPC errors.
std::vector<gammalab::RunPoint> fetch_sweep_runs(const std::string& server, const std::string& sweep_id,
                                                                const std::string& group_by);

}  // namespace gammalab::cli
