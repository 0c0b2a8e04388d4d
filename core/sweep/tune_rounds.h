#pragma once
// A tune stage in rounds (docs/sweeps.md, "Widening and refining the grid"): once every tune run has ended, the
// coordinator may add runs before it picks.
//  - tune.extend: N. A group whose best value of a numeric field lies on an edge of the grid gets one more value
//    beyond that edge, a grid step further (the ratio of the two outermost values, or their difference when the
//    grid is not all positive), up to N values per edge. An edge pick is then an optimum that was looked past,
//    not an artefact of where the grid was drawn.
//  - tune.refine: true. Once the group's pick lies inside the grid, the geometric midpoints between it and its
//    two neighbours (×√2 on a ×2 grid) are tried as well, once.
// Each added value runs with the pick's runs' configs (its seeds, and the values of axes not in `per`), the
// field changed. The decision is a function of the stage as written and the runs that ended, so a coordinator
// that restarts mid-stage adds the same runs, and adding a round twice adds nothing.
#include <string>
#include <vector>

#include "core/sweep/expanded.h"
#include "core/sweep/tune.h"

namespace gammalab {

// The tune jobs to add before the stage picks (named as the runs they copy, with the changed field's value),
// or an empty sweep when the stage is complete. The runs must all have ended.
Sweep next_tune_round(const SweepStages& stages, const std::vector<TuneRun>& runs);

// The most tune jobs the rounds can add to the stage as written: per group and numeric tuned field, tune.extend
// values beyond each edge and two midpoints, each run as often as a value of the grid is (its seeds, and the
// values of axes not in `per`). For `plan`, which costs them as the stage's average tune job.
std::size_t max_tune_round_jobs(const SweepStages& stages);

// Sets each trial's `origin`: "" on the grid as written, "extended" beyond its edge, "refined" between the
// pick and a neighbour.
void mark_tune_origins(const SweepStages& stages, TunePicks& picks);

}  // namespace gammalab
