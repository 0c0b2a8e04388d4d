#pragma once
// How `gammalab tune` shows a tune stage's picks (core/sweep/tune.h): per group the loss of every value
// tried, the pick marked, or why there is none.
#include <string>

#include "core/sweep/tune.h"

namespace gammalab::cli {

std::string tune_picks_text(const TunePicks& picks);

}  // namespace gammalab::cli
