#pragma once
// Power before compute: for a planned sweep (its sizes and paired seeds), how wide the interval of the local
// multiplier (core/scaling/comparison.h) is expected to be, and how often it excludes 1× when the variant's
// true effect is `multiplier`. Simulated: whole studies are drawn from a stated noise level and analysed by the
// estimator `gammalab fit` reports (paired bootstrap, small-sample widening), so the answer includes every
// property of that estimator, not of an idealised one.
// The simulated baseline falls by loss_slope per e-fold of compute (straight in ln C, where interpolation
// between sizes is exact); the variant's loss at C is the baseline's at multiplier·C. A run's loss has s.d.
// `noise` around its configuration's mean, a share seed_correlation of its variance shared with the other
// group's run of the same seed and size (data order, initial weights), which the pairs cancel.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace gammalab {

struct PowerDesign {
  std::vector<double> compute;    // the baseline's compute at each size, FLOPs
  int seeds = 3;                  // paired seeds per size (each run by baseline and variant)
  // When not empty, one count per size (in compute's order) in place of `seeds`: a design grown by moves
  // (core/scaling/next_move.h) has more seeds where they were worth their cost.
  std::vector<int> seeds_per_size;
  double multiplier = 1.22;       // the effect to detect: the paper's ~1.22× for unified over baseline
  double noise = 0.01;            // s.d. of one run's final loss over seeds
  double seed_correlation = 0.0;  // share of that variance common to a pair; 0 assumes pairing gains nothing
  double loss_slope = 0.08;       // the baseline's loss decrease per e-fold of compute
  // The shape of a run's own noise (what pairing does not cancel), scaled to s.d. 1 before use: empty draws a
  // normal; else one of these, drawn with replacement (the standardised residuals of an earlier sweep,
  // measure_noise, with its heavy tails or two modes). noise_df > 2 draws Student's t with that many degrees of
  // freedom instead of a normal when there are no residuals.
  std::vector<double> noise_shape;
  double noise_df = 0.0;
  // The LR pick's own noise: each arm's picked LR at each size is off the optimum by a normal draw of s.d.
  // pick_noise in log2 units, which costs lr_curvature·δ² in loss for every seed of that arm and size (a tune
  // stage's winner's curse, which more main seeds do not average away). 0: the pick is exact.
  double pick_noise = 0.0;
  double lr_curvature = 0.0;      // loss increase per squared log2 step of LR away from the optimum
  double confidence = 0.95;
  int studies = 400;    // simulated studies
  int resamples = 200;  // bootstrap resamples in each
  std::uint64_t seed = 0;
};

struct PowerEstimate {
  double power = 0.0;         // share of studies whose interval excludes 1× on the effect's side
  double median_ratio = 0.0;  // median over studies of the interval's hi / lo (NaN when none has an interval)
  int sizes_inside = 0;       // median over studies of the sizes the pooled multiplier uses (inside the data)
  // Share of the studies with an interval whose interval holds the true multiplier: near the confidence when
  // the noise is what the interval resamples; below it when part of the noise is shared by every seed of an arm
  // and size (an LR pick off its optimum), which no resampling of seeds sees.
  double coverage = 0.0;
  int studies = 0;
};

// The paired seeds of size i: seeds_per_size[i], or `seeds` when that is empty.
int seeds_at(const PowerDesign& design, std::size_t i);

// Throws std::invalid_argument for fewer than 2 sizes, seeds < 1, seeds_per_size not one per size, or a
// non-positive noise or slope.
PowerEstimate simulate_power(const PowerDesign& design);

// The fewest paired seeds per size, the same at every size (from `from` up to max_seeds), whose simulation
// `reaches` the goal, keeping the sizes, with that simulation; nullopt when none does. What the seeds buy grows with
// them (each seed's runs are the same in every design: the streams above), so it doubles until the goal is
// reached, then bisects between the last two counts.
struct SeedsFound {
  int seeds = 0;
  PowerEstimate estimate;
};
std::optional<SeedsFound> fewest_seeds_reaching(PowerDesign design, int from, int max_seeds,
                                                const std::function<bool(const PowerEstimate&)>& reaches);

// The fewest such seeds whose simulated power reaches `target`.
std::optional<int> seeds_for_power(PowerDesign design, double target, int max_seeds);

}  // namespace gammalab
