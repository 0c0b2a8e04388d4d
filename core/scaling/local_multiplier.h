#pragma once
// A compute multiplier that needs no law: at a size of the variant, the compute at which the baseline's mean
// loss equals the variant's, read off the baseline's own sizes by linear interpolation in ln C, over the
// variant's compute there:
//   m_local = C_b(L_v) / C_v
// Where the variant's loss lies between the baseline's losses at this size and the next, this is the paired gap
// divided by the baseline's local slope in ln C: ln m_local = (L_v - L_b) / (dL_b / d ln C). Only the sizes
// where the baseline's own runs reach the variant's loss are "inside the data"; beyond the baseline's best
// (or worst) size the end segment is extended, and the value is marked outside.
// A straight line between two points of a convex curve lies above it, so on a power law the interpolated C_b
// is too large and m_local overstates the law's multiplier by about exp(alpha·t·(h - t)/2), h the segment's
// width in ln C and t = ln m: sizes closer together shrink it.
#include <vector>

namespace gammalab {

// One size of a group: its compute and its mean final loss over seeds.
struct CurvePoint {
  double log_compute = 0.0;
  double loss = 0.0;
};

struct LocalLog {
  double value = 0.0;   // ln C_b(L): NaN with fewer than two points or a flat segment where it is needed
  bool inside = false;  // some segment of the baseline brackets L
};

// ln of the compute at which the baseline (points in any order) reaches `loss`: among the segments between
// neighbouring sizes whose losses bracket it, the crossing nearest `near_log_compute` (a noisy curve may cross
// a level more than once; the local one is wanted); outside the curve's range, the end segment on that side,
// extended.
LocalLog log_compute_to_reach(std::vector<CurvePoint> baseline, double loss, double near_log_compute);

// ln m_local of a variant point against the baseline curve.
LocalLog local_log_multiplier(const std::vector<CurvePoint>& baseline, const CurvePoint& variant);

}  // namespace gammalab
