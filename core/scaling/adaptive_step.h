#pragma once
// One step of a study that plans itself: after a batch of runs finishes and is refitted (the FitReport that
// `gammalab fit` makes of them), stop, or make the move that narrows the widest headline interval most per FLOP.
// Every comparison's headline (core/scaling/verdict.h) is read; the moves are valued by simulation
// (core/scaling/next_move.h) of the design the runs form, at the noise, seed correlation and slope measured on
// those runs (core/scaling/noise_estimate.h) and the effect the study planned for.
//
// Valid under adaptivity: the rule looks at the intervals' widths, never at where they lie, so stopping does not
// depend on the estimate crossing 1 (the calibration suite's adaptive rows show the coverage it keeps). The
// planned effect is fixed before any data; only the noise is measured, and it sets which move, not when to stop.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/fit_report.h"
#include "core/scaling/next_move.h"

namespace gammalab {

struct AdaptiveTarget {
  double ratio = 1.21;  // every headline's hi/lo at most this (1.21: about ×1.10 either side)
  double budget_flops = std::numeric_limits<double>::infinity();  // FLOPs the moves may add in all
  int max_batches = 20;
};

// Besides next_move.h's kStopTarget, kStopBudget and kStopNoGain (of the widest headline, here):
inline constexpr const char* kStopBatches = "batches";  // max_batches were made
inline constexpr const char* kStopNoNoise = "no noise"; // the runs give no seed noise or no falling baseline

struct AdaptiveDecision {
  std::string stop;               // empty: make `move`; else one of the kStop* words
  std::optional<MoveValue> move;  // the move to make (also set with kStopBudget: the one that did not fit)
  std::string why;                // the decision in words, for the stage's history
  double ratio = 0.0;             // the widest headline's hi/lo now; +inf where a comparison has no interval
  std::string widest;             // "unified over baseline"
  // A seed move as the runs name it: the baseline's N at that size and the next seed none of its runs has, so
  // the runs to add can be written down (0 and nullopt for other moves, and for runs without seeds).
  double params = 0.0;
  std::optional<std::uint64_t> seed;
};

// The design the runs form: the baseline's sizes in order of compute (one token budget per size: a ladder) and
// the seeds each has. Throws std::invalid_argument for a size with several budgets (a surface of branches,
// which the moves do not model) or fewer than two baseline sizes.
PowerDesign observed_design(const std::vector<RunPoint>& runs, const std::string& baseline);

// The decision after `batches` batches that added `flops_spent`. `planning` holds the effect, confidence and
// simulation sizes (studies, resamples, seed); its noise, correlation, slope and sizes come from the runs.
// Deterministic: the same runs, in any order, give the same decision.
AdaptiveDecision decide_next(const FitReport& report, const std::vector<RunPoint>& runs, PowerDesign planning,
                             const MoveRules& rules, const AdaptiveTarget& target, double flops_spent, int batches,
                             int threads = 1);

}  // namespace gammalab
