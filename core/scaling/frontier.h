#pragma once
// The compute-optimal frontier of a set of runs, judged by replicate cells (core/scaling/replicates.h): what law
// `c` is fitted to, and what the multiplier's profile compares.
#include <vector>

#include "core/scaling/law.h"

namespace gammalab {

// The compute frontier: runs no other run beats with at most the same compute. Replicated runs (same N, D
// and C, i.e. seeds) form one cell judged by its mean loss, and a frontier cell keeps all its runs. Cells at the
// same budget (relative tolerance 1e-6) keep only the lowest mean, so iso-FLOP data yields one cell per
// budget.
std::vector<RunPoint> compute_frontier(const std::vector<RunPoint>& runs);

}  // namespace gammalab
