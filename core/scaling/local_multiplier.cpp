// The law-free compute multiplier (core/scaling/local_multiplier.h).
#include "core/scaling/local_multiplier.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gammalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ln C where the segment from a to b reaches `loss` (a straight line in (ln C, L)); NaN for a flat segment.
double crossing(const CurvePoint& a, const CurvePoint& b, double loss) {
  if (!(a.loss != b.loss)) return kNaN;
  return a.log_compute + (loss - a.loss) * (b.log_compute - a.log_compute) / (b.loss - a.loss);
}

}  // namespace

LocalLog log_compute_to_reach(std::vector<CurvePoint> curve, double loss, double near_log_compute) {
  if (curve.size() < 2 || !std::isfinite(loss)) return {kNaN, false};
  std::sort(curve.begin(), curve.end(),
            [](const CurvePoint& a, const CurvePoint& b) { return a.log_compute < b.log_compute; });
  LocalLog best{kNaN, false};
  for (std::size_t j = 0; j + 1 < curve.size(); ++j) {
    const CurvePoint &a = curve[j], &b = curve[j + 1];
    if (loss < std::min(a.loss, b.loss) || loss > std::max(a.loss, b.loss)) continue;
    const double x = crossing(a, b, loss);
    if (!std::isfinite(x)) continue;
    if (!best.inside || std::abs(x - near_log_compute) < std::abs(best.value - near_log_compute)) best = {x, true};
  }
  if (best.inside) return best;
  // Outside: the end the loss lies beyond. The curve falls with compute, so a loss below its last point is
  // reached beyond the last segment, and one above its first point before the first.
  const bool below_last = loss < curve.back().loss;
  const std::size_t j = below_last ? curve.size() - 2 : 0;
  return {crossing(curve[j], curve[j + 1], loss), false};
}

LocalLog local_log_multiplier(const std::vector<CurvePoint>& baseline, const CurvePoint& variant) {
  LocalLog at = log_compute_to_reach(baseline, variant.loss, variant.log_compute);
  at.value -= variant.log_compute;
  return at;
}

}  // namespace gammalab
