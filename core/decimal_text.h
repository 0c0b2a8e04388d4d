#pragma once
// Plain decimal numbers in text (`42`, `-1.5e-3`, `.5`), recognised by a linear hand-written scan and
// converted with std::from_chars: no std::regex (which recurses per character and overflows the stack on long
// input), no locale, and no hex, inf or nan that strtod would also accept. Used by the YAML reader and the
// expression parser.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gammalab {

struct DecimalScan {
  std::size_t length = 0;  // characters of the number at the start of the text; 0 = none
  bool integer = false;    // digits only (after the sign): no '.' and no exponent
};

// The longest prefix of `text` of the form [sign] (digits [. digits*] | . digits) [(e|E) [sign] digits].
// `allow_sign`: a leading + or - belongs to the number.
DecimalScan scan_decimal(std::string_view text, bool allow_sign);

// The value of text that scan_decimal accepted in full (a leading '+' is allowed). Too large for a double:
// +-infinity; too small: 0. Callers decide whether a non-finite value is an error.
double decimal_value(std::string_view text);

// A number as error messages show it: ten significant digits, "inf", "-inf" or "nan".
std::string number_text(double v);

// A whole decimal integer that fits in int64, else nullopt.
std::optional<long long> decimal_integer(std::string_view text);

}  // namespace gammalab
