#pragma once
// What `gammalab fit` (CSV or sweep) asks of fit_runs().
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/fit.h"
#include "core/scaling/law.h"

namespace gammalab {

struct FitOptions {
  std::optional<LawKind> law;         // nullopt: default_law(runs)
  std::string baseline = "baseline";  // group the multipliers are relative to
  // Control arms: every other variant is also compared with each of these groups that the runs have (paired
  // gaps and local multipliers, no law), so a verdict says what a variant adds over the control, e.g. over
  // the baseline with QK-norm (the variant `qknorm`, docs/variants.md), or over unified's placement without its
  // scale vectors (`dnp_novec`: what is left is the vectors' own gain).
  std::vector<std::string> controls = {"qknorm", "dnp_novec"};
  int bootstrap = 1000;               // resamples; 0 = point estimates only
  std::uint64_t seed = 0;             // base seed of the bootstrap (same seed, same intervals)
  double confidence = 0.95;           // central percentile interval
  // Compute budgets (FLOPs) for multipliers; empty: the whole decades inside the compute range every group's
  // runs cover (its geometric middle if none). A budget outside a pair's common range is refused unless
  // `extrapolate`, and then reported marked as extrapolated.
  std::vector<double> budgets;
  bool extrapolate = false;
  // Also fit without the largest model size and predict it; done anyway with 5 or more sizes.
  bool holdout_largest = false;
  FitSettings settings;               // Huber delta, start grid, L-BFGS iterations, threads, warm starts
  // The tune stage's runs at the pick (core/scaling/job_points.h, tune_runs_at_pick): checked against the main
  // runs' seeds (core/scaling/tune_seed_check.h), never fitted.
  std::vector<RunPoint> tune_runs_at_pick;
  // Rows to predict with each group's law (`gammalab fit --predict`): a row with a group is predicted by that
  // group's law only, one without by every group's. Their losses, where given, are shown, never fitted.
  std::vector<RunPoint> predict;
};
inline constexpr std::size_t kMaxPredictRows = 10000;  // each is predicted by every bootstrap refit

// chinchilla when tokens vary independently of params (|corr(ln N, ln D)| < 0.99 and more than one D),
// otherwise n: with D tied to N (e.g. 20 tokens per parameter) A/N^alpha and B/D^beta are not identified.
LawKind default_law(const std::vector<RunPoint>& runs);

}  // namespace gammalab
