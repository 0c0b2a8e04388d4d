#pragma once
// How `gammalab fit` shows a FitReport to people: the verdict in words first (one headline per comparison, how
// it was got, the other estimator as a check), then the warnings. Behind it, on request (--detail): per variant
// and size, the gap to the baseline within pairs of runs sharing a seed (the unpaired figure beside it where
// pairs are incomplete) and the local multiplier, which need no law; per group the seeds' mean and standard
// error per size, the fitted law's parameters with their intervals and the held-out-size check; the law-based
// compute multipliers, marked where they extrapolate, with the range the fit cannot tell apart. Aligned tables
// (cli/table.h); prose wrapped at word boundaries to the terminal's width. An interval the bootstrap could not bound reads "unbounded: add sizes or seeds", a parameter
// at the edge of its domain "not identified (at bound)", never a number.
#include <cstddef>
#include <string>

#include "core/scaling/fit_report.h"

namespace gammalab::cli {

struct FitTextOptions {
  bool detail = true;       // the tables behind the verdict; without them, a line saying how to ask for them
  std::size_t columns = 0;  // wrap prose to this width; 0: whole lines (a pipe or a file)
};

std::string fit_report_text(const FitReport& report, const FitTextOptions& options = {});

// Per comparison, one headline from the estimator the design supports and how it was got, with the other
// estimator beneath it as a check (core/scaling/verdict.h: the sentences the dashboard shows too).
std::string fit_verdict_text(const FitReport& report);

}  // namespace gammalab::cli
