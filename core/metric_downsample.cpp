// M4 downsampling (core/metric_downsample.h): one pass over the points, the Extremes of each bucket.
#include "core/metric_downsample.h"

#include <algorithm>
#include <stdexcept>

#include "core/metric_tiles.h"

namespace gammalab {

std::vector<std::size_t> downsample_indices(std::span<const MetricPoint> points, std::size_t buckets) {
  if (buckets < 1) throw std::invalid_argument("downsample: buckets must be at least 1");
  std::vector<std::size_t> out;
  if (points.size() <= 4 * buckets) {
    out.resize(points.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
    return out;
  }
  const DownsamplePlan plan = plan_downsample(points.front().step, points.back().step, buckets);
  const std::int64_t first_bucket = plan.bucket(points.front().step);
  std::vector<Extremes> kept(static_cast<std::size_t>(plan.bucket(points.back().step) - first_bucket + 1));
  for (const MetricPoint& p : points) kept[static_cast<std::size_t>(plan.bucket(p.step) - first_bucket)].add(p.step, p.tokens, p.value);
  // Steps to indices: both ascending, so one walk.
  out.reserve(4 * kept.size());
  std::size_t i = 0;
  for (const Extremes& bucket : kept) {
    if (bucket.points == 0) continue;
    for (std::int64_t step : bucket.kept_steps()) {
      while (points[i].step < step) ++i;
      out.push_back(i);
    }
  }
  return out;
}

std::vector<MetricPoint> downsample(std::span<const MetricPoint> points, std::size_t buckets) {
  std::vector<MetricPoint> out;
  for (std::size_t i : downsample_indices(points, buckets)) out.push_back(points[i]);
  return out;
}

}  // namespace gammalab
