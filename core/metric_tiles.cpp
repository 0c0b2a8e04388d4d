// Tiles of a metric curve and the aligned bucketing they serve (core/metric_tiles.h).
#include "core/metric_tiles.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gammalab {

bool value_below(double a, double b) {
  const bool fa = std::isfinite(a);
  const bool fb = std::isfinite(b);
  if (fa && fb) return a < b;
  return fa && !fb;
}

void Extremes::add(std::int64_t step, double value) {
  Extremes one;
  one.points = 1;
  one.first_step = one.last_step = one.low_step = one.high_step = step;
  one.low_value = one.high_value = value;
  merge(one);
}

void Extremes::merge(const Extremes& o) {
  if (o.points == 0) return;
  if (points == 0) {
    *this = o;
    return;
  }
  points += o.points;
  first_step = std::min(first_step, o.first_step);
  last_step = std::max(last_step, o.last_step);
  // Neither below the other: equal (or both non-finite); the earlier step is the extreme.
  if (value_below(o.low_value, low_value) || (!value_below(low_value, o.low_value) && o.low_step < low_step)) {
    low_step = o.low_step;
    low_value = o.low_value;
  }
  if (value_below(high_value, o.high_value) || (!value_below(o.high_value, high_value) && o.high_step < high_step)) {
    high_step = o.high_step;
    high_value = o.high_value;
  }
}

std::vector<std::int64_t> Extremes::kept_steps() const {
  std::vector<std::int64_t> steps = {first_step, low_step, high_step, last_step};
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());
  return steps;
}

DownsamplePlan plan_downsample(std::int64_t first_step, std::int64_t last_step, std::size_t buckets) {
  if (buckets < 1) throw std::invalid_argument("downsample: buckets must be at least 1");
  if (first_step < 0 || last_step < first_step) throw std::invalid_argument("downsample: bad step range");
  DownsamplePlan plan;
  const std::int64_t span = last_step - first_step;
  if (buckets == 1) {
    // One bucket over all of it: a width past the last step, in whole tiles of the coarsest level.
    plan.level = kTileLevels;
    plan.bucket_steps = (last_step / tile_steps(kTileLevels) + 1) * tile_steps(kTileLevels);
    return plan;
  }
  // Aligned buckets of width w meet at most span / w + 1 of them: w >= span / (buckets - 1) keeps that within
  // `buckets`, and rounding w up to whole tiles only makes it fewer.
  const auto b = static_cast<std::int64_t>(buckets - 1);
  const std::int64_t width = std::max<std::int64_t>(1, (span + b - 1) / b);
  while (plan.level < kTileLevels && 8 * tile_steps(plan.level + 1) <= width) ++plan.level;
  const std::int64_t tile = tile_steps(plan.level);
  plan.bucket_steps = (width + tile - 1) / tile * tile;
  // A width that happens to be whole tiles of a coarser level reads those instead: fewer rows, same buckets.
  while (plan.level < kTileLevels && plan.bucket_steps % tile_steps(plan.level + 1) == 0) ++plan.level;
  return plan;
}

std::vector<TileRange> tile_cover(std::int64_t begin, std::int64_t end, int max_level) {
  std::vector<TileRange> head, tail;  // ascending from begin; descending from end
  std::int64_t lo = begin, hi = end;
  for (int level = 0; level < max_level && lo < hi; ++level) {
    // Finish this level's ragged ends up to the next level's boundaries (lo rounded up, hi rounded down).
    const std::int64_t unit = tile_steps(level), next = tile_steps(level + 1);
    const std::int64_t lo_next = std::min(hi, (lo + next - 1) / next * next);
    if (lo < lo_next) head.push_back({level, lo / unit, lo_next / unit});
    lo = lo_next;
    const std::int64_t hi_next = std::max(lo, hi / next * next);
    if (hi_next < hi) tail.push_back({level, hi_next / unit, hi / unit});
    hi = hi_next;
  }
  if (lo < hi) head.push_back({max_level, lo / tile_steps(max_level), hi / tile_steps(max_level)});
  head.insert(head.end(), tail.rbegin(), tail.rend());
  return head;
}

}  // namespace gammalab
