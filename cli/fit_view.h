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

// Per comparison, one headline from the estimator the design supports and how it was got, with the other
// estimator beneath it as a check (core/scaling/verdict.h: the sentences the dashboard shows too).
std::string fit_verdict_text(const FitReport& report);

}  // namespace gammalab::cli
