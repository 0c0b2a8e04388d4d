// How numbers are shown in messages (number_text) and read from text (scan_decimal, decimal_value).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/decimal_text.h"

namespace gammalab {
namespace {

TEST(NumberText, NonFiniteValuesHaveOneSpellingWhateverTheirSignBit) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(number_text(nan), "nan");
  EXPECT_EQ(number_text(std::copysign(nan, -1.0)), "nan");  // what some LibTorch versions' NaN losses carry
  EXPECT_EQ(number_text(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(number_text(-std::numeric_limits<double>::infinity()), "-inf");
}

TEST(NumberText, TenSignificantDigits) {
  EXPECT_EQ(number_text(3.14159265358979), "3.141592654");
  EXPECT_EQ(number_text(1e-12), "1e-12");
  EXPECT_EQ(number_text(-2.5), "-2.5");
}

TEST(DecimalValue, ReadsWhatScanDecimalAccepts) {
  EXPECT_DOUBLE_EQ(decimal_value("+1.5e3"), 1500.0);
  EXPECT_TRUE(std::isinf(decimal_value("1e400")));
  EXPECT_EQ(decimal_value("1e-400"), 0.0);
}

}  // namespace
}  // namespace gammalab
