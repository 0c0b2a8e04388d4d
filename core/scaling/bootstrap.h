#pragma once
// Bootstrap resampling for scaling-law fits. Runs of one model size (e.g. several token budgets of the same
// model, or baseline and variant at the same size) are not independent, so the unit of resampling is the model
// size: draw sizes with replacement and take all runs of each drawn size (a cluster / paired bootstrap).
// Each resample has its own generator seeded from (base seed, index), so results do not depend on threads.
#include <cstdint>
#include <random>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab {

// SplitMix64 of base and index: well-mixed, distinct seeds for neighbouring indices.
std::uint64_t resample_seed(std::uint64_t base_seed, std::uint64_t index);

// Indices into runs of one resample: unique model sizes drawn with replacement, all runs of each drawn size.
// Redraws (up to 100 times) while some group has fewer than min(min_sizes, its own size count) distinct sizes,
// since a law with k size-dependent parameters is not identified on fewer sizes.
std::vector<std::size_t> resample_by_model_size(const std::vector<RunPoint>& runs, std::mt19937_64& rng,
                                                int min_sizes);

struct Interval {
  double lo = 0.0;
  double hi = 0.0;
};

// Quantile q in [0, 1] of sorted values, linear interpolation between order statistics (Hyndman-Fan type 7).
double quantile_sorted(const std::vector<double>& sorted, double q);
// Central percentile interval at `confidence` (e.g. 0.95 -> 2.5% and 97.5%). NaNs are dropped; infinities are
// kept (an unreachable loss gives an infinite multiplier). Both ends NaN if no value is left.
Interval percentile_interval(std::vector<double> values, double confidence);

}  // namespace gammalab
