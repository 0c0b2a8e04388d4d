#pragma once
// How `gammalab fit` shows a FitReport to people: first, per variant and size, the gap to the baseline within
// pairs of runs sharing a seed (the unpaired figure beside it where pairs are incomplete) and the local
// multiplier, which need no law; then per group the seeds' mean and standard error per size, the fitted law's
// parameters with their intervals and the held-out-size check; the law-based compute multipliers, marked where
// they extrapolate, with the range the fit cannot tell apart; and a verdict in words. Aligned tables
// (cli/table.h). An interval the bootstrap could not bound reads "unbounded: add sizes or seeds", a parameter
// at the edge of its domain "not identified (at bound)", never a number.
#include <string>

#include "core/scaling/fit_report.h"

namespace gammalab::cli {

std::string fit_report_text(const FitReport& report);

// Per variant: the local multiplier (no law) with its paired interval and jackknife over sizes; then how much
// less (or more) compute the law says it needs for the same final loss, with the interval, the bootstrap unit,
// the sizes × seeds behind it, the compute range it holds for and the profile's range, and a warning in words
// when the law misses the largest size by more than the effect.
std::string fit_verdict_text(const FitReport& report);

}  // namespace gammalab::cli
