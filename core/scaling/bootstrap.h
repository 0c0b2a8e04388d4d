#pragma once
// Bootstrap resampling for scaling-law fits, with two units:
// - With seeds (every configuration run two or more times), runs are resampled within each replicate cell
//   (core/scaling/replicates.h): the sizes and budgets are the experimenter's design, not a sample, and
//   the seed is where a run's randomness lives. Every size stays in every resample, so the law stays
//   identified and the interval measures seed noise.
//   When every run has a seed and the groups ran the same seeds at every size (core/scaling/pairing.h), the
//   draw is of seeds within each size, and every group gets the same draw: a variant's difference to the
//   baseline keeps what the pair shares (data order, initial weights) out of its spread.
//   The unit drawn is the run family: one size and seed with every token budget it reached. A run's cooldown
//   branches (docs/branches.md) share its stable phase and with it most of its seed's noise, and separate runs
//   of one size and seed share its initial weights and data order, so the budgets of one size take one draw of
//   seeds together; drawing each (size, budget) cell on its own would treat a run and its branches as
//   independent and make the interval too narrow.
// - With one run per configuration there is no seed noise to resample, and the unit is the model size: draw
//   sizes with replacement and take all runs of each drawn size (a cluster / paired bootstrap), since runs of
//   one size (several token budgets, or baseline and variant) are not independent.
// Each resample has its own stream, resample_seed(base seed, index), so results do not depend on threads; within
// it, each block (a family, a cell) draws from a generator keyed by what the block is (its group, N, D and
// seeds), not by the order blocks are visited in, so the same runs in any order draw the same resample.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/scaling/law.h"
#include "core/scaling/pairing.h"
#include "core/scaling/replicates.h"

namespace gammalab {

// SplitMix64 of base and index: well-mixed, distinct seeds for neighbouring indices.
std::uint64_t resample_seed(std::uint64_t base_seed, std::uint64_t index);

// The fewest distinct model sizes a resample of sizes keeps per group: the laws' free parameters in size.
inline constexpr int kMinResampledSizes = 3;

// Indices into runs of one resample: unique model sizes drawn with replacement, all runs of each drawn size.
// Redraws (up to 100 times) while some group has fewer than min(min_sizes, its own size count) distinct sizes,
// since a law with k size-dependent parameters is not identified on fewer sizes.
std::vector<std::size_t> resample_by_model_size(const std::vector<RunPoint>& runs, std::mt19937_64& rng,
                                                int min_sizes);

// The generator of one block of resample `stream` (resample_seed(base, index)), keyed by the block's group, N,
// D and seeds: SplitMix64 over their bits.
std::mt19937_64 block_generator(std::uint64_t stream, const std::string& group, double params, double tokens,
                                const std::vector<std::uint64_t>& seeds);
// The same keyed by any values (a law file's family variables): block_generator is this with {params, tokens}.
std::mt19937_64 keyed_generator(std::uint64_t stream, const std::string& group, const std::vector<double>& values,
                                const std::vector<std::uint64_t>& seeds);

// One resample that keeps the design: each run family of a group (its cells at one N whose runs carry the
// same seeds) draws as many seeds as it has, with replacement, and each of its cells takes its run of each
// drawn seed; a cell whose runs have no seeds (or other seeds than the family's) draws its runs on its own.
// A drawn loss is moved away from its cell's mean by sqrt(n/(n-1)): resampling n values gives a mean whose
// variance is (n-1)/n of the true one (half of it with 2 seeds), and this inflation is the usual small-sample
// correction (Davison & Hinkley 1997, §2.4 and §6.2's modified residuals).
std::vector<RunPoint> resample_within_cells(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells,
                                            std::uint64_t stream);

// The paired form of resample_within_cells: per family (the pairing's blocks at one baseline N with the same
// seeds), as many seeds as it has are drawn with replacement, and every group's cell in every block of the family
// takes its run of each drawn seed (moved from the cell's mean by the same sqrt(n/(n-1))). Needs
// pairing.complete.
std::vector<RunPoint> resample_paired(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells,
                                      const Pairing& pairing, std::uint64_t stream);

struct Interval {
  double lo = 0.0;
  double hi = 0.0;
};

// Quantile q in [0, 1] of sorted values, linear interpolation between order statistics (Hyndman-Fan type 7).
double quantile_sorted(const std::vector<double>& sorted, double q);
// Central percentile interval at `confidence` (e.g. 0.95 -> 2.5% and 97.5%). NaNs are dropped; infinities are
// kept (an unreachable loss gives an infinite multiplier). Both ends NaN if no value is left.
Interval percentile_interval(std::vector<double> values, double confidence);

// The factor that widens a percentile interval around its estimate when the noise was estimated from few
// seeds: t_{df}((1+confidence)/2) / z((1+confidence)/2), the expanded percentile interval (Hesterberg 2015).
// Resampling n seeds draws means from a distribution with the spread of the n values, but not with the
// uncertainty of that spread, which with 2 or 3 seeds is most of it; df is the seeds' degrees of freedom
// (seeds - 1; for a quantity pooled over sizes, Satterthwaite's over them, not necessarily whole). NaN for
// df < 1: no interval.
double small_sample_expansion(double degrees_of_freedom, double confidence);
// lo and hi moved away from `value` by `factor` (on the scale the caller passes: a multiplier's on ln m).
Interval expand_interval(double value, Interval interval, double factor);
// The percentile interval of positive draws around a positive estimate, widened by `factor` on the log scale
// (a multiplier's, a positive parameter's). Draws that are not positive are dropped; NaN ends with fewer than
// two draws or a factor that is not finite.
Interval log_scale_interval(std::vector<double> draws, double estimate, double factor, double confidence);

}  // namespace gammalab
