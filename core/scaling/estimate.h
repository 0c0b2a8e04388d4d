#pragma once
// One reported quantity of a fit: its value on all data and its bootstrap interval, or the reason it has none.
#include <string>

namespace gammalab {

// The fewest degrees of freedom an interval is printed on. Below it (one size with two seeds: a t interval of
// ±12.7 standard errors) every view says "too few seeds to bound" instead of a number that is not 95%.
inline constexpr double kFewestDegreesOfFreedom = 2.0;

struct Estimate {
  std::string name;
  double value = 0.0;  // from the fit on all data
  double lo = 0.0;     // percentile interval over bootstrap refits; NaN without bootstrap
  double hi = 0.0;
  // The value sits on the edge of the parameter's domain (E at 0, an exponent at 0): the data put no bound on
  // it from that side, and the refits pile up at the edge, so their spread is no interval. The report says
  // "not identified (at bound)" instead, and lo and hi are NaN (core/scaling/identification.h).
  bool at_bound = false;
  // The value is inside its domain but the interval's lower end reaches its edge (E's interval down to ~0, an
  // exponent's to 0): the data bound it from above only. Said beside the interval.
  bool reaches_bound = false;

  // Both ends finite: the bootstrap bounded it. Otherwise the report says "unbounded", never a number.
  bool bounded() const;
};

}  // namespace gammalab
