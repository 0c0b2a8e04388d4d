// The law-free compute multiplier (core/scaling/local_multiplier.h).
#include "core/scaling/local_multiplier.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <boost/math/interpolators/barycentric_rational.hpp>
#include <boost/math/tools/roots.hpp>

namespace gammalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

bool same_sign(double a, double b) { return (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0); }

// The slope at an end point from its two segments (h0 and d0 the end segment's width and chord, h1 and d1 the
// next one's): the three-point formula, kept to the end chord's sign and, where the data turn, to three times
// it, so that the end segment stays monotone (Fritsch & Carlson 1980; Moler, Numerical Computing with MATLAB,
// §3.4, as MATLAB's and SciPy's pchip do).
double end_slope(double h0, double h1, double d0, double d1) {
  const double slope = ((2.0 * h0 + h1) * d0 - h0 * d1) / (h0 + h1);
  if (!same_sign(slope, d0)) return 0.0;
  if (!same_sign(d0, d1) && std::abs(slope) > std::abs(3.0 * d0)) return 3.0 * d0;
  return slope;
}

}  // namespace

BaselineCurve::BaselineCurve(std::vector<CurvePoint> points) {
  std::stable_sort(points.begin(), points.end(),
                   [](const CurvePoint& a, const CurvePoint& b) { return a.log_compute < b.log_compute; });
  for (const CurvePoint& p : points) {
    if (!std::isfinite(p.log_compute) || !std::isfinite(p.loss)) continue;
    if (!points_.empty() && !(p.log_compute > points_.back().log_compute)) continue;
    points_.push_back(p);
  }
  const std::size_t n = points_.size();
  if (n < 2) return;
  std::vector<double> h(n - 1), d(n - 1);
  for (std::size_t j = 0; j + 1 < n; ++j) {
    h[j] = points_[j + 1].log_compute - points_[j].log_compute;
    d[j] = (points_[j + 1].loss - points_[j].loss) / h[j];
  }
  std::vector<double> x, y;
  for (const CurvePoint& p : points_) {
    x.push_back(p.log_compute);
    y.push_back(p.loss);
  }
  slopes_.assign(n, 0.0);
  if (n == 2) {
    slopes_[0] = slopes_[1] = d[0];  // a cubic with the chord's slope at both ends is the chord
  } else if (n == 3) {
    fritsch_carlson_slopes(h, d);
  } else {
    rational_slopes(x, y, d);
  }
  std::vector<double> slopes = slopes_;
  cubic_.emplace(std::move(x), std::move(y), std::move(slopes));
}

void BaselineCurve::fritsch_carlson_slopes(const std::vector<double>& h, const std::vector<double>& d) {
  const std::size_t n = points_.size();
  for (std::size_t k = 1; k + 1 < n; ++k) {
    if (!same_sign(d[k - 1], d[k])) continue;  // a turn or a flat segment: zero slope keeps both sides monotone
    const double w1 = 2.0 * h[k] + h[k - 1], w2 = h[k] + 2.0 * h[k - 1];
    slopes_[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k]);
  }
  slopes_[0] = end_slope(h[0], h[1], d[0], d[1]);
  slopes_[n - 1] = end_slope(h[n - 2], h[n - 3], d[n - 2], d[n - 3]);
}

void BaselineCurve::rational_slopes(const std::vector<double>& x, const std::vector<double>& y,
                                    const std::vector<double>& d) {
  const std::size_t n = points_.size();
  const boost::math::barycentric_rational<double> rational(x.data(), y.data(), n, 3);
  for (std::size_t k = 0; k < n; ++k) {
    const double slope = rational.prime(x[k]);
    // Hyman's filter: the slope keeps the sign of the chords beside it (zero where they turn) and at most three
    // times the smaller of them, which keeps each segment of the cubic monotone.
    const double left = k > 0 ? d[k - 1] : d[k], right = k + 1 < n ? d[k] : d[k - 1];
    if (!same_sign(left, right) || !same_sign(slope, left)) continue;
    const double limit = 3.0 * std::min(std::abs(left), std::abs(right));
    slopes_[k] = std::copysign(std::min(std::abs(slope), limit), slope);
  }
}

LocalLog BaselineCurve::log_compute_to_reach(double loss, double near_log_compute) const {
  const std::size_t n = points_.size();
  if (n < 2 || !std::isfinite(loss)) return {kNaN, false, kNaN};
  LocalLog best{kNaN, false, kNaN};
  for (std::size_t j = 0; j + 1 < n; ++j) {
    const CurvePoint &a = points_[j], &b = points_[j + 1];
    if (!(a.loss != b.loss) || loss < std::min(a.loss, b.loss) || loss > std::max(a.loss, b.loss)) continue;
    // Each segment is monotone (the slopes above keep it so), so it crosses the level once: bracketed root.
    double x = a.loss == loss ? a.log_compute : b.log_compute;
    if (a.loss != loss && b.loss != loss) {
      std::uintmax_t iterations = 100;
      const auto [lo, hi] = boost::math::tools::toms748_solve(
          [&](double at) { return (*cubic_)(at) - loss; }, a.log_compute, b.log_compute, a.loss - loss,
          b.loss - loss, boost::math::tools::eps_tolerance<double>(48), iterations);
      x = 0.5 * (lo + hi);
    }
    if (!best.inside || std::abs(x - near_log_compute) < std::abs(best.value - near_log_compute)) {
      best = {x, true, cubic_->prime(x)};
    }
  }
  if (best.inside) return best;
  // Outside: the end the loss lies beyond, along the curve's tangent there (its end chord where the tangent is
  // flat). The curve falls with compute, so a loss below its last point is reached beyond the last size, and
  // one above its first point before the first.
  const bool below_last = loss < points_.back().loss;
  const std::size_t end = below_last ? n - 1 : 0;
  const double slope = end_tangent(below_last);
  if (!(slope != 0.0) || !std::isfinite(slope)) return {kNaN, false, kNaN};
  return {points_[end].log_compute + (loss - points_[end].loss) / slope, false, slope};
}

double BaselineCurve::end_tangent(bool last) const {
  const std::size_t n = points_.size();
  const std::size_t end = last ? n - 1 : 0;
  const std::size_t segment = last ? n - 2 : 0;
  if (slopes_[end] != 0.0) return slopes_[end];
  return (points_[segment + 1].loss - points_[segment].loss) /
         (points_[segment + 1].log_compute - points_[segment].log_compute);
}

double BaselineCurve::loss_at(double log_compute) const {
  if (points_.size() < 2 || !std::isfinite(log_compute)) return kNaN;
  const CurvePoint& first = points_.front();
  const CurvePoint& last = points_.back();
  if (log_compute < first.log_compute) return first.loss + end_tangent(false) * (log_compute - first.log_compute);
  if (log_compute > last.log_compute) return last.loss + end_tangent(true) * (log_compute - last.log_compute);
  return (*cubic_)(log_compute);
}

LocalLog local_log_multiplier(const BaselineCurve& baseline, const CurvePoint& variant) {
  LocalLog at = baseline.log_compute_to_reach(variant.loss, variant.log_compute);
  at.value -= variant.log_compute;
  return at;
}

}  // namespace gammalab
