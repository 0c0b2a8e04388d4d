#pragma once
// A variant beside the baseline without a law: size by size, the gap in final loss (within pairs of runs that
// share a seed, core/scaling/pairing.h) and the local compute multiplier (core/scaling/local_multiplier.h),
// pooled with precision weights over every size both arms ran, with its trend over sizes and a size-level
// jackknife. This is what the data say before any law is fitted, and fit_runs() reports it first.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/estimate.h"
#include "core/scaling/law.h"
#include "core/scaling/local_multiplier.h"
#include "core/scaling/pairing.h"
#include "core/scaling/replicates.h"

namespace gammalab {

struct SizeComparison {
  double params = 0.0, tokens = 0.0, compute = 0.0;  // the baseline's configuration
  double variant_compute = 0.0;
  double baseline_mean = 0.0;          // the baseline's mean final loss here
  int baseline_runs = 0, variant_runs = 0;
  int pairs = 0;                       // seeds run in both groups at this size
  double paired_mean = 0.0;            // mean over pairs of variant - baseline; NaN without pairs
  double paired_standard_error = 0.0;  // s.d. of the pairs' differences / sqrt(pairs); NaN under two pairs
  double unpaired_standard_error = 0.0;  // the two cells' standard errors in quadrature; NaN under two runs each
  bool complete = false;               // every run of both cells has its partner
  Estimate gap;    // "gap": the variant's mean minus the baseline's (paired_mean when complete), bootstrap interval
  Estimate local;  // "m_local": C_b(L_v) / C_v; NaN where the baseline's sizes are no curve (not a ladder)
  bool inside = false;  // the baseline's runs reach the variant's mean loss here
};

// Leave one size out of both groups (a node of the baseline's curve, and a size of the pooled multiplier).
struct Jackknife {
  int sizes = 0;                        // leave-one-out values
  double lo = 0.0, hi = 0.0;            // smallest and largest pooled m_local without one size
  double log_standard_error = 0.0;      // jackknife s.e. of ln m_local: sqrt((n-1)/n · sum (x_i - mean)^2)
};

// The token multiplier at one model size that ran two or more budgets (core/scaling/token_multiplier.h).
struct SizeTokenMultiplier {
  double params = 0.0;        // the baseline's size
  int budgets = 0;            // its budgets (blocks of the comparison at this size)
  int budgets_inside = 0;     // of them, where the baseline's own budgets bracket the variant's loss
  int degrees_of_freedom = 0; // its seeds - 1 (pairs - 1 when paired; the fewest over its budgets)
  Estimate value;             // "m_D": D_b(L_v) / D, the geometric mean over its budgets
};

// The baseline's curve of one token slice as m_local is read off it on all data, sampled for drawing (the
// dashboard's scaling chart against compute): log-spaced C over its sizes and every reading of the slice.
struct CurveTrace {
  std::vector<double> compute, loss;
};
inline constexpr int kCurveTracePoints = 32;

struct Comparison {
  std::string variant, baseline;
  bool paired = false;  // every run has its partner and the bootstrap drew pairs
  // The baseline's sizes trace curves in C: one token count per size (a ladder), or the same number at every
  // size, the k-th of each a curve of its own (a surface of cooldown branches, ComparisonPlan::slices).
  bool ladder = false;
  std::vector<SizeComparison> sizes;
  // What the verdict reports, m_local pooled over the support: every size both arms ran whose m_local exists on
  // all data, inside the baseline's range or not (fixed before the outcome is looked at, so a better variant's
  // largest size counts too). Precision weights, fixed on all data: a size's seeds times the square of the
  // baseline's slope where it reaches the variant's loss, the inverse of ln m_local's variance when the
  // paired gap's noise is the same at every size (ln m = gap / slope). The resampling unit is the run family,
  // one size and seed with every budget it reached, so a cooldown branch moves with its run.
  Estimate local;             // "m_local": precision-weighted geometric mean over the support
  Estimate local_unweighted;  // "m_local unweighted": the plain geometric mean over the same support, beside it
  // ln m_local against ln N over the support's sizes (weighted least squares): its slope says whether the
  // multiplier changes with scale; NaN with fewer than two sizes.
  Estimate trend;
  Estimate at_largest;  // "m_local at the largest size": the support's largest size, over its budgets
  // The trend's interval excludes 0, and is one the verdict prints (two or more degrees of freedom left after
  // the slope's).
  bool trend_resolved() const {
    return trend.bounded() && degrees_of_freedom - 1.0 >= kFewestDegreesOfFreedom && (trend.lo > 0.0 || trend.hi < 0.0);
  }
  int sizes_inside = 0;     // blocks of the support inside the baseline's range
  int sizes_pooled = 0;     // model sizes (run families' sizes) in the support
  int fewest_seeds = 0;     // the fewest seeds (pairs when paired) of a size in the support
  double degrees_of_freedom = 0.0;  // of the pooled value: Satterthwaite's over the sizes' seeds - 1
  int largest_degrees_of_freedom = 0;  // of at_largest: that size's seeds - 1
  bool chord = false;       // some baseline curve had two sizes only: m_local is a chord's, biased up on a convex curve
  std::vector<CurveTrace> baseline_curves;  // per token slice with two or more sizes; none off a ladder
  std::optional<Jackknife> jackknife;
  // The token multiplier at fixed N, read along each size's own budgets (a surface of cooldown branches): per
  // size with two or more budgets, and the geometric mean over them (its df Satterthwaite's over their seeds).
  // Empty, and tokens.value NaN, where no size ran two budgets.
  std::vector<SizeTokenMultiplier> token_sizes;
  Estimate tokens;
  double tokens_degrees_of_freedom = 0.0;
  // The effect in the law's own currency: mean over sizes of |gap| / the baseline's mean loss.
  double relative_effect = 0.0;
  // The larger relative error of the two groups' laws predicting their largest size's mean loss from the other
  // sizes (NaN when neither was checked). Above relative_effect, the laws cannot carry a difference this small.
  double holdout_error = 0.0;
  bool holdout_exceeds_effect() const { return holdout_error > relative_effect; }
};

// What a comparison tracks, fixed on all data so that the values of every resample line up with it.
struct ComparisonPlan {
  std::string variant, baseline;
  std::size_t variant_slot = 0;                 // the variant's index in the pairing's groups
  std::vector<std::size_t> blocks;              // pairing blocks where both groups have a cell
  std::vector<ReplicateCell> base_cells, variant_cells;  // their cells, per planned block
  std::vector<char> inside;                     // per planned block, on all data
  // Per planned block, its token slice: the rank of its token count among its baseline size's. The baseline's
  // curve for a block is the blocks of its slice.
  std::vector<std::size_t> slices;
  bool ladder = false;
  // Per planned block, its weight in the pooled m_local (Comparison::local), fixed on all data; 0 outside the
  // support.
  std::vector<double> weights;
  // Per planned block, its run family's index: blocks at one baseline size share their seeds' runs.
  std::vector<std::size_t> families;
  // Per run family, its budgets and, on all data, how many of them the baseline's own budgets bracket (the token
  // multiplier at fixed N, token_multiplier.h; fewer than two budgets: no reading).
  std::vector<int> family_budgets, family_budgets_inside;
  bool chord = false;  // some slice's curve has two sizes only
};

// groups[variant] against groups[reference]: the baseline (slot 0), or a control arm such as baseline with
// QK-norm, matched at the baseline's sizes (the pairing's blocks).
ComparisonPlan plan_comparison(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells,
                               const Pairing& pairing, const std::vector<std::string>& groups, std::size_t variant,
                               std::size_t reference = 0);

// The tracked values from the cells' means in `sample` (all data, or a resample that keeps every cell):
// per planned block the gap, then per planned block ln m_local, then over the support the precision-weighted
// and the unweighted mean of ln m_local, the trend of ln m_local on ln N, and ln m_local at the largest size;
// then per run family (baseline size) ln m_D, and their mean (token_multiplier.h).
std::vector<double> comparison_values(const ComparisonPlan& plan, const std::vector<RunPoint>& sample);
std::size_t comparison_value_count(const ComparisonPlan& plan);

// The report of a plan: `tracked` holds one Estimate per value of comparison_values, in order, the ln m_local
// ones on the log scale (their exp is reported). Intervals are widened for the seeds' degrees of freedom
// (bootstrap.h: small_sample_expansion): a size's pairs - 1; for a value pooled over sizes, Satterthwaite's
// over the sizes (each size's share of the weight with its seeds - 1), which counts run families, not the
// (size, budget) cells that share their runs' noise.
Comparison describe_comparison(const ComparisonPlan& plan, const std::vector<RunPoint>& runs,
                               std::vector<Estimate> tracked, bool paired, double confidence);

}  // namespace gammalab
