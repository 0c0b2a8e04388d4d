#pragma once
// A compute multiplier that needs no law: at a size of the variant, the compute at which the baseline's mean
// loss equals the variant's, read off the baseline's own sizes, over the variant's compute there:
//   m_local = C_b(L_v) / C_v
// The baseline's sizes are joined by a monotone piecewise cubic Hermite in (ln C, L), not by straight chords.
// A chord between two points of a convex curve lies above it, so on a power law it puts C_b too far out and
// overstates m by about exp(alpha·t·(h - t)/2), h the segment's width in ln C and t = ln m (1.30 read as 1.36
// with sizes a decade of compute apart and alpha = 0.15). The cubic's slope at each size: with four or more
// sizes, that of the Floater-Hormann rational interpolant of order 3 through all of them (Boost.Math; accurate to
// third order), limited by Hyman's (1983) filter to keep every segment monotone; with three, Fritsch & Carlson's
// (1980) weighted harmonic mean of the neighbouring chords and the shape-preserving three-point formula at the
// ends. On that power law the first reads 1.30 within 0.2%, the second within 0.9%
// (tests/core/scaling_local_multiplier_test.cpp). With two sizes there is no curvature to see and the chord is
// all there is: BaselineCurve::chord() says so, and the verdict with it.
// Only the sizes where the baseline's own runs reach the variant's loss are "inside the data"; beyond the
// baseline's best (or worst) size the curve is continued along its tangent at the end size, and the value is
// marked outside.
#include <optional>
#include <vector>

#include <boost/math/interpolators/cubic_hermite.hpp>

namespace gammalab {

// One size of a group: its compute and its mean final loss over seeds.
struct CurvePoint {
  double log_compute = 0.0;
  double loss = 0.0;
};

struct LocalLog {
  double value = 0.0;   // ln C_b(L) (or ln m_local): NaN with fewer than two points or where the curve is flat
  bool inside = false;  // some segment of the baseline brackets L
  double slope = 0.0;   // dL/d ln C of the baseline's curve where it reaches L: the gap's exchange rate into ln m
};

class BaselineCurve {
 public:
  // Points in any order; two at the same compute keep the first in compute order (none do in a sweep).
  explicit BaselineCurve(std::vector<CurvePoint> points);

  // ln of the compute at which the curve reaches `loss`: among the segments between neighbouring sizes whose
  // losses bracket it, the crossing nearest `near_log_compute` (a noisy curve may cross a level more than once;
  // the local one is wanted); outside the curve's range, along the tangent at the end size on that side.
  LocalLog log_compute_to_reach(double loss, double near_log_compute) const;

  // The curve's loss at ln C: the cubic between the first and last size, along the tangent at the end size
  // beyond them (as log_compute_to_reach continues it); NaN with fewer than two sizes. For drawing the curve the
  // multiplier is read off (Comparison::baseline_curves).
  double loss_at(double log_compute) const;
  double first_log_compute() const { return points_.empty() ? 0.0 : points_.front().log_compute; }
  double last_log_compute() const { return points_.empty() ? 0.0 : points_.back().log_compute; }

  // Two sizes: the straight chord, whose bias the cubic's third size would remove.
  bool chord() const { return points_.size() == 2; }
  std::size_t sizes() const { return points_.size(); }

 private:
  // Inner sizes: the weighted harmonic mean of the neighbouring chords (zero where they differ in sign); end
  // sizes: end_slope. h and d: each segment's width in ln C and chord slope.
  void fritsch_carlson_slopes(const std::vector<double>& h, const std::vector<double>& d);
  // Four or more sizes: the rational interpolant's slopes through Hyman's filter.
  void rational_slopes(const std::vector<double>& x, const std::vector<double>& y, const std::vector<double>& d);
  // The slope the curve is continued with past its first (last: false) or last size: the tangent there, or the
  // end chord's where the tangent is flat. Two or more sizes.
  double end_tangent(bool last) const;
  std::vector<CurvePoint> points_;  // by compute
  std::vector<double> slopes_;      // dL/d ln C at each point
  // Boost.Math's cubic Hermite interpolant through the points with those slopes (two or more points).
  std::optional<boost::math::interpolators::cubic_hermite<std::vector<double>>> cubic_;
};

// ln m_local of a variant point against the baseline curve.
LocalLog local_log_multiplier(const BaselineCurve& baseline, const CurvePoint& variant);

}  // namespace gammalab
