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
  int bootstrap = 1000;               // resamples; 0 = point estimates only
  std::uint64_t seed = 0;             // base seed of the bootstrap (same seed, same intervals)
  double confidence = 0.95;           // central percentile interval
  std::vector<double> budgets;        // compute budgets (FLOPs) for multipliers; empty: decades spanning the data
  bool holdout_largest = false;       // also fit without the largest model size and predict it
  FitSettings settings;               // Huber delta, start grid, L-BFGS iterations, threads, warm starts
};

// chinchilla when tokens vary independently of params (|corr(ln N, ln D)| < 0.99 and more than one D),
// otherwise n: with D tied to N (e.g. 20 tokens per parameter) A/N^alpha and B/D^beta are not identified.
LawKind default_law(const std::vector<RunPoint>& runs);

}  // namespace gammalab
