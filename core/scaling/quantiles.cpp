// Normal and Student t quantiles (core/scaling/quantiles.h).
#include "core/scaling/quantiles.h"

#include <cmath>
#include <numbers>

namespace gammalab {

namespace {

template <typename Cdf>
double invert(Cdf cdf, double p, double lo, double hi) {
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = 0.5 * (lo + hi);
    (cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// The regularised incomplete beta function I_x(a, b) by its continued fraction (modified Lentz), as in
// Press et al., Numerical Recipes, 3rd ed., §6.4.
double incomplete_beta(double x, double a, double b) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  if (x > (a + 1.0) / (a + b + 2.0)) return 1.0 - incomplete_beta(1.0 - x, b, a);  // converges faster there
  const double front =
      std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x)) / a;
  const double tiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  d = 1.0 / (std::abs(d) < tiny ? tiny : d);
  double f = d;
  for (int m = 1; m <= 300; ++m) {
    for (int half = 0; half < 2; ++half) {
      const double numerator = half == 0 ? m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
                                         : -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1.0 + numerator * d;
      d = 1.0 / (std::abs(d) < tiny ? tiny : d);
      c = 1.0 + numerator / c;
      c = std::abs(c) < tiny ? tiny : c;
      f *= c * d;
    }
    if (std::abs(c * d - 1.0) < 1e-15) break;
  }
  return front * f;
}

}  // namespace

double normal_quantile(double p) {
  return invert([](double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }, p, -40.0, 40.0);
}

double student_t_quantile(double p, int df) {
  if (p < 0.5) return -student_t_quantile(1.0 - p, df);
  // P(T <= x) = 1 - I_{df/(df+x^2)}(df/2, 1/2) / 2 for x >= 0. Heavy tails at df = 1 (the 99.9% point is 318):
  // the search reaches far enough out for any interval a report uses.
  const double v = df;
  return invert([v](double x) { return 1.0 - 0.5 * incomplete_beta(v / (v + x * x), v / 2, 0.5); }, p, 0.0, 1e4);
}

}  // namespace gammalab
