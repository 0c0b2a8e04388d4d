#pragma once
// How `gammalab fit` shows a FitReport to people: per group the fitted law's parameters with their intervals,
// the held-out-size check, and the compute multipliers over the baseline, as aligned tables (cli/table.h).
#include <string>

#include "core/scaling/fit_report.h"

namespace gammalab::cli {

std::string fit_report_text(const FitReport& report);

}  // namespace gammalab::cli
