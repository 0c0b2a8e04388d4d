#pragma once
// The cooldown branches of a sweep's main stage (`branches:`, docs/branches.md): for each WSD run and budget, a
// job that starts from the run's checkpoint at (budget - decay) and decays linearly to 0 by the budget.
#include "core/sweep/diagnostics.h"
#include "core/sweep/document.h"
#include "core/sweep/expanded.h"

namespace gammalab {

// Adds each run's branches right after it, sets the runs' branch points, and reports what cannot branch: a
// run that is not WSD, a budget outside the run or too short for a stable phase, two budgets that round to
// the same step, a branch whose start is not the run's state (core/branch_point.h).
void add_branches(Sweep& main, const SweepBranches& branches, DiagnosticList& diagnostics);

}  // namespace gammalab
