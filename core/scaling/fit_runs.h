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

// Compares every other group with options.baseline size by size without a law (paired gaps and the local
// multiplier: core/scaling/comparison.h); fits options.law (or default_law) per group of runs; bootstraps
// intervals (by seeds within each size when every configuration is replicated, the same seeds for every group
// when the runs pair up, else by model size: core/scaling/bootstrap.h); summarises each size's seeds; computes
// law-based multipliers over the baseline at budgets inside the compute range both groups cover, with the
// profile of the shared fit's constant (core/scaling/profile.h); marks parameters at bound
// (core/scaling/identification.h); with 5 or more sizes (or options.holdout_largest) checks the prediction of
// the largest size, and warns when it misses by more than the effect. Throws std::invalid_argument for
// unusable input (no runs, non-positive values, too few distinct sizes for the law, a budget outside the data
// without options.extrapolate).
FitReport fit_runs(const std::vector<RunPoint>& runs, const FitOptions& options);

// Why `runs` cannot identify the law of `options` yet, counted in distinct levels, not runs: law n needs 3
// model sizes per group, law c 3 compute levels on each group's frontier, chinchilla 3 sizes and 5 (N, D)
// configurations, isoflop 3 sizes. Seeds of one size add runs but no level. The text says what is there and
// what is needed; nullopt when there is enough (fit_runs may still refuse bad values). fit_runs throws
// std::invalid_argument with this text; a caller that waits for more runs (the coordinator) asks here first.
std::optional<std::string> not_enough_sizes(const std::vector<RunPoint>& runs, const FitOptions& options);

}  // namespace gammalab
