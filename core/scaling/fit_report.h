#pragma once
// The result of fit_runs(): per group the fitted law with bootstrap intervals, multipliers over the baseline,
// and the optional held-out-size check; as JSON here (coordinator, dashboard), as text in cli/fit_view.h.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scaling/comparison.h"
#include "core/scaling/estimate.h"
#include "core/scaling/law.h"
#include "core/scaling/profile.h"
#include "core/scaling/replicates.h"
#include "core/scaling/tune_seed_check.h"

namespace gammalab {

struct HoldoutRun {
  RunPoint run;
  double predicted = 0.0;
  double relative_error = 0.0;  // (predicted - loss) / loss
};

// Fit on runs smaller than the largest model size, prediction of the runs at that size.
struct HoldoutCheck {
  double held_out_params = 0.0;
  LawFit fit;
  std::vector<HoldoutRun> runs;
  double mean_abs_relative_error = 0.0;
  double max_abs_relative_error = 0.0;
};

// One x of a law's pointwise band: the percentile interval of the bootstrap refits' predicted loss there.
struct BandPoint {
  double x = 0.0;
  double lo = 0.0;
  double hi = 0.0;
};

// The x of a law's band, as the JSON names it: "compute" (C) for law c, else "params" (N).
inline const char* band_axis(LawKind law) { return law == LawKind::c ? "compute" : "params"; }

// How many x a band has: log-spaced from a third below the group's smallest x to half again its largest.
inline constexpr int kBandPoints = 24;

// A row of FitOptions::predict under one group's law: the prediction, its bootstrap interval (the percentile
// interval of the refitted laws' predictions, NaN without a bootstrap), and whether the row lies outside the
// group's own runs (a larger N, D or C than any it ran, or a smaller).
struct Prediction {
  RunPoint at;               // as given; at.loss NaN when the row had none
  double predicted = 0.0;
  double lo = 0.0, hi = 0.0;
  bool extrapolated = false;
};

struct GroupFit {
  std::string group;
  int runs = 0;
  int model_sizes = 0;
  std::vector<CellSummary> sizes;  // per (N, D) configuration: runs (seeds), mean final loss, standard error
  LawFit fit;                      // on all runs of the group
  std::vector<Estimate> parameters;
  std::vector<Estimate> derived;
  std::optional<HoldoutCheck> holdout;
  // The law's pointwise bootstrap band along its own x (band_axis(law)), laws n and chinchilla at the group's
  // median tokens per parameter: at each x the `confidence` interval of the refitted laws' losses. Unlike a band
  // over the corners of the parameters' intervals it keeps how the parameters vary together. Empty without a
  // bootstrap, and for the isoflop law.
  std::vector<BandPoint> band;
  std::vector<Prediction> predictions;  // of FitOptions::predict's rows for this group, in their order
};

struct BudgetMultiplier {
  double compute = 0.0;
  Estimate multiplier;  // name "m(C)"; value may be +inf when the baseline cannot reach the loss
  // C lies outside the compute range both groups' runs cover, or the baseline needs a compute outside its
  // own runs' range to reach the variant's loss: the number extrapolates a law.
  bool extrapolated = false;
};

struct Multiplier {
  std::string variant;
  std::string baseline;
  double compute_lo = 0.0, compute_hi = 0.0;  // the compute range both groups' runs cover
  std::vector<BudgetMultiplier> at_budgets;   // from the two groups' own frontiers
  // Law c only: joint fit of both frontiers with common E and alpha, where the multiplier is a constant.
  std::optional<Estimate> constant;
  std::vector<Estimate> shared_fit;  // E, alpha, A_baseline, A_variant of that joint fit
  // The range of constant multipliers that joint fit cannot tell apart (core/scaling/profile.h); open at an
  // end where the objective is flat up to the profile's edge.
  std::optional<ProfileRange> profile;
};

struct FitReport {
  LawKind law = LawKind::n;
  double confidence = 0.95;
  int bootstrap_requested = 0;
  int bootstrap_used = 0;  // resamples whose refits all produced finite parameters
  std::string bootstrap_unit;  // kResampleSeeds or kResampleSizes (core/scaling/bootstrap.h says when)
  std::uint64_t seed = 0;
  std::string baseline;
  std::vector<GroupFit> groups;
  // Law-free, per variant over the baseline: the gap at every size (within pairs of runs sharing a seed) and the
  // local multiplier. What the runs say before any law; the verdict quotes it first.
  std::vector<Comparison> comparisons;
  std::vector<Multiplier> multipliers;
  // The tune stage's runs at the pick against the main seeds, when there are any (its warning is in warnings).
  std::optional<TuneSeedCheck> tune_seed;
  std::vector<std::string> warnings;
};

inline constexpr const char* kResampleSeeds = "runs within each size";
inline constexpr const char* kResampleSizes = "model sizes";
inline constexpr const char* kResamplePairedSeeds = "seeds within each size, paired across groups";

// The seeds were resampled, not the model sizes (which redraw a ladder's nodes): the law-free comparisons have
// intervals. They read every resample, also those whose law refits failed, so bootstrap_used is not asked.
inline bool seeds_resampled(const FitReport& r) {
  return r.bootstrap_requested > 0 && !r.bootstrap_unit.empty() && r.bootstrap_unit != kResampleSizes;
}

// Non-finite numbers become the strings "nan", "inf", "-inf" (as in metric lines); every estimate also has
// "bounded".
nlohmann::json to_json(const FitReport& report);
// The inverse, for a report stored by the coordinator. The holdout's refit and a fit's theta and optima are
// not stored; everything fit_report_text prints is. Throws nlohmann::json::exception on a malformed report.
FitReport fit_report_from_json(const nlohmann::json& json);

}  // namespace gammalab
