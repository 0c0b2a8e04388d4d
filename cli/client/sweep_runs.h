#pragma once
// What `gammalab fit SWEEP` reads from the coordinator: the final losses of a sweep's finished jobs, or the
// fit the coordinator stored.
#include <string>
#include <vector>

#include "core/scaling/law.h"
#include "gammalab/v1/gammalab.pb.h"

namespace gammalab::cli {

// One RunPoint per finished job: params, tokens, final loss, compute if known (else 0 = 6·N·D), group = the
// value of the job's `group_by` field (e.g. a variant name), label = job name. Throws on RPC errors.
std::vector<gammalab::RunPoint> fetch_sweep_runs(const std::string& server, const std::string& sweep_id,
                                                                const std::string& group_by);

// The reports of the coordinator's newest fit version of the sweep (one per law), empty while it has none.
// Throws on RPC errors.
std::vector<v1::Fit> fetch_latest_fits(const std::string& server, const std::string& sweep_id);

}  // namespace gammalab::cli
