#pragma once
// What `gammalab fit SWEEP` reads from the coordinator: the final losses of a sweep's finished jobs, or the
// fit the coordinator stored.
#include <string>
#include <vector>

#include "core/scaling/law.h"
#include "gammalab/v1/gammalab.pb.h"

namespace gammalab::cli {

struct SweepRuns {
  // One RunPoint per finished main job: params, tokens, final loss, compute if known (else 0 = 6·N·D), group =
  // the value of the job's `group_by` field (e.g. a variant name), label = job name.
  std::vector<gammalab::RunPoint> runs;
  // The finished tune runs at the pick (core/scaling/job_points.h), for the tune seed check; never fitted.
  std::vector<gammalab::RunPoint> tune_runs_at_pick;
};
// Throws on RPC errors.
SweepRuns fetch_sweep_runs(const std::string& server, const std::string& sweep_id, const std::string& group_by);

// The reports of the coordinator's newest fit version of the sweep (one per law), empty while it has none.
// Throws on RPC errors.
std::vector<v1::Fit> fetch_latest_fits(const std::string& server, const std::string& sweep_id);

}  // namespace gammalab::cli
