#pragma once
// How a number is written for people, in the CLI's tables and in the verdict sentences that the CLI, the
// dashboard and the report all show: one home, so a value reads the same everywhere.
#include <string>

namespace gammalab {

// "nan", "inf" or "-inf": how every number writer here says a value that is not finite.
std::string non_finite_text(double v);

// "2.35" for (2.3456, 2): a fixed count of decimals; "nan", "inf", "-inf".
std::string fixed(double v, int decimals);

// "2.3456" for (2.34561, 5): `digits` significant digits, no trailing zeros; "nan", "inf", "-inf".
std::string significant(double v, int digits);

// A count at a glance: "950", "1.5k", "12.35M", "1.20B", "3.00T" (model sizes in tables and verdicts).
std::string count_text(double n);

}  // namespace gammalab
