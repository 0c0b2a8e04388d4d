#pragma once
// How `gammalab fit` shows a FitReport to people: per group the seeds' mean and standard error per size, the
// fitted law's parameters with their intervals and the held-out-size check; the compute multipliers over the
// baseline, marked where they extrapolate; and a verdict in words. Aligned tables (cli/table.h). An interval
// the bootstrap could not bound reads "unbounded: add sizes or seeds", never a number.
#include <string>

#include "core/scaling/fit_report.h"

namespace gammalab::cli {

std::string fit_report_text(const FitReport& report);

// One sentence per variant: how much less (or more) compute it needs than the baseline for the same final
// loss, with the interval, the bootstrap unit, the sizes × seeds behind it and the compute range it holds for.
std::string fit_verdict_text(const FitReport& report);

}  // namespace gammalab::cli
