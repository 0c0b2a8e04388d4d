#pragma once
// The one entry point of scaling-law analysis: both `gammalab fit --points FILE.csv` and `gammalab fit SWEEP`
// (final losses fetched from the coordinator) call fit_runs().
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/fit_options.h"
#include "core/scaling/fit_report.h"
#include "core/scaling/law.h"

namespace gammalab {

// Fits options.law (or default_law) per group of runs, bootstraps intervals by model-size resampling (paired
// across groups), computes multipliers of every other group over options.baseline at options.budgets, and
// optionally checks extrapolation to the largest model size. Throws std::invalid_argument for unusable input
// (no runs, non-positive values, a group too small for the law).
FitReport fit_runs(const std::vector<RunPoint>& runs, const FitOptions& options);

// Why `runs` are not enough for fit_runs under `options` yet: no runs, or a group with fewer runs than the law
// has parameters. nullopt when there are enough (fit_runs may still refuse bad values). fit_runs throws
// std::invalid_argument with this text; a caller that waits for more runs (the coordinator) asks here first.
std::optional<std::string> not_enough_runs(const std::vector<RunPoint>& runs, const FitOptions& options);

}  // namespace gammalab
