// Plain decimal numbers: a linear scan of the grammar and std::from_chars (see decimal_text.h).
#include "core/decimal_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <system_error>

namespace gammalab {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::size_t digits_from(std::string_view text, std::size_t i) {
  while (i < text.size() && is_digit(text[i])) ++i;
  return i;
}

}  // namespace

DecimalScan scan_decimal(std::string_view text, bool allow_sign) {
  std::size_t i = 0;
  if (allow_sign && i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  const std::size_t int_end = digits_from(text, i);
  const bool int_digits = int_end > i;
  i = int_end;
  bool integer = true;
  if (i < text.size() && text[i] == '.') {
    const std::size_t frac_end = digits_from(text, i + 1);
    if (!int_digits && frac_end == i + 1) return {};  // "." or "-." alone
    i = frac_end;
    integer = false;
  } else if (!int_digits) {
    return {};
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
    const std::size_t exp_end = digits_from(text, j);
    if (exp_end > j) {  // else "1e" is the number 1 followed by a name
      i = exp_end;
      integer = false;
    }
  }
  return {i, integer};
}

double decimal_value(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc::result_out_of_range) {
    // Overflow (+-inf) or underflow (0 or a subnormal): strtod gives that, and reads plain decimal text the
    // same way from_chars does.
    return std::strtod(std::string(text).c_str(), nullptr);
  }
  return ec == std::errc() ? value : std::numeric_limits<double>::quiet_NaN();
}

std::optional<long long> decimal_integer(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  long long value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string number_text(double v) {
  // A NaN's sign bit means nothing, and which one an operation leaves differs between LibTorch versions.
  if (std::isnan(v)) return "nan";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace gammalab
