#pragma once
// How the CLI writes numbers: one home, so that a value reads the same in every command and table.
#include <string>

#include "core/number_format.h"

namespace gammalab::cli {

// fixed (2.35) and significant (2.3456) are core's: the verdict sentences are written in core/scaling.
using ::gammalab::fixed;
using ::gammalab::significant;

// "1.23e+18" for (1.2345e18, 2): mantissa with `decimals` decimals, for FLOPs and other wide ranges.
std::string scientific(double v, int decimals = 2);

// A count at a glance: "950", "1.5k", "12.35M", "1.20B", "3.00T".
std::string count_text(double n);

// The shortest text that reads back as the same double (exports); "nan", "inf", "-inf" for what JSON cannot hold.
std::string round_trip_text(double v);

// "42%" for 0.4213: a probability as a whole percentage.
std::string percent(double p);

}  // namespace gammalab::cli
