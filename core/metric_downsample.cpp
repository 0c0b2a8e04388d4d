// M4 downsampling (core/metric_downsample.h): one pass over the points, four candidates per bucket.
#include "core/metric_downsample.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gammalab {

namespace {

// Ordering of values for "lowest" and "highest": a non-finite value (NaN or +-inf) is above every finite one,
// so it is the bucket's highest and never its lowest (-inf included: a divergence, whichever way it went).
bool below(double a, double b) {
  const bool fa = std::isfinite(a);
  const bool fb = std::isfinite(b);
  if (fa && fb) return a < b;
  return fa && !fb;
}

struct Bucket {
  std::size_t first = 0, last = 0, low = 0, high = 0;
  bool used = false;
};

}  // namespace

std::vector<std::size_t> downsample_indices(std::span<const MetricPoint> points, std::size_t buckets) {
  if (buckets < 1) throw std::invalid_argument("downsample: buckets must be at least 1");
  std::vector<std::size_t> out;
  if (points.size() <= 4 * buckets) {
    out.resize(points.size());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = i;
    return out;
  }
  const std::int64_t lo = points.front().step;
  const std::int64_t hi = points.back().step;
  // Steps as doubles: exact up to 2^53, far beyond any run (core/limits.h caps steps at 1e10).
  const double per_step = static_cast<double>(buckets) / (static_cast<double>(hi - lo) + 1.0);
  std::vector<Bucket> kept(buckets);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto b = std::min(buckets - 1, static_cast<std::size_t>(static_cast<double>(points[i].step - lo) * per_step));
    Bucket& k = kept[b];
    if (!k.used) {
      k = {i, i, i, i, true};
      continue;
    }
    k.last = i;
    if (below(points[i].value, points[k.low].value)) k.low = i;
    if (below(points[k.high].value, points[i].value)) k.high = i;
  }
  out.reserve(4 * buckets);
  for (const Bucket& k : kept) {
    if (!k.used) continue;
    std::size_t four[] = {k.first, k.low, k.high, k.last};
    std::sort(std::begin(four), std::end(four));
    for (std::size_t i : four) {
      if (out.empty() || out.back() != i) out.push_back(i);
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
