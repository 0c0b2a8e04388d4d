#pragma once
// How the CLI writes numbers: one home, so that a value reads the same in every command and table.
#include <string>

#include "core/number_format.h"

namespace gammalab::cli {

// fixed (2.35), significant (2.3456) and count_text (10.3k) are core's: the verdict sentences are written in
// core/scaling.
using ::gammalab::count_text;
using ::gammalab::fixed;
using ::gammalab::significant;

// "1.23e+18" for (1.2345e18, 2): mantissa with `decimals` decimals, for FLOPs and other wide ranges.
std::string scientific(double v, int decimals = 2);

// The shortest text that reads back as the same double (exports); "nan", "inf", "-inf" for what JSON cannot hold.
std::string round_trip_text(double v);

// "42%" for 0.4213: a probability as a whole percentage.
std::string percent(double p);

}  // namespace gammalab::cli
