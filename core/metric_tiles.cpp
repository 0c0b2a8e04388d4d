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

void Extremes::add(std::int64_t step, std::int64_t tokens, double value) {
  Extremes one;
  one.points = 1;
  one.first = one.last = one.low = one.high = KeptPoint{step, tokens, value};
  merge(one);
}

void Extremes::merge(const Extremes& o) {
  if (o.points == 0) return;
  if (points == 0) {
    *this = o;
    return;
  }
  points += o.points;
  if (o.first.step < first.step) first = o.first;
  if (o.last.step > last.step) last = o.last;
  // Neither below the other: equal (or both non-finite); the earlier step is the extreme.
  if (value_below(o.low.value, low.value) || (!value_below(low.value, o.low.value) && o.low.step < low.step)) low = o.low;
  if (value_below(high.value, o.high.value) || (!value_below(o.high.value, high.value) && o.high.step < high.step)) {
    high = o.high;
  }
}

std::vector<KeptPoint> Extremes::kept() const {
  std::vector<KeptPoint> out = {first, low, high, last};
  std::sort(out.begin(), out.end(), [](const KeptPoint& a, const KeptPoint& b) { return a.step < b.step; });
  out.erase(std::unique(out.begin(), out.end(), [](const KeptPoint& a, const KeptPoint& b) { return a.step == b.step; }),
            out.end());
  return out;
}

std::vector<std::int64_t> Extremes::kept_steps() const {
  std::vector<std::int64_t> steps;
  for (const KeptPoint& p : kept()) steps.push_back(p.step);
  return steps;
}

bool Extremes::operator==(const Extremes& o) const {
  auto same = [](const KeptPoint& a, const KeptPoint& b) {
    return a.step == b.step && a.tokens == b.tokens &&
           (a.value == b.value || (std::isnan(a.value) && std::isnan(b.value)));
  };
  return points == o.points && same(first, o.first) && same(last, o.last) && same(low, o.low) && same(high, o.high);
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
  // The coarsest level whose whole tiles widen the bucket by at most a quarter. Rows read per bucket are what a
  // read costs (a level-2 bucket of 14 tiles against a level-3 one of 2 was 0.34 s against 0.14 s for a sweep of
  // 100 x 100k points, docs/perf.md), and a quarter fewer buckets than asked is one per 5 px instead of 4.
  // Level 0 always qualifies; the level above the chosen one does not, so a bucket is at most 40 tiles.
  for (int level = 0; level <= kTileLevels; ++level) {
    const std::int64_t tile = tile_steps(level);
    const std::int64_t rounded = (width + tile - 1) / tile * tile;
    if (rounded <= width + width / 4) {
      plan.level = level;
      plan.bucket_steps = rounded;
    }
  }
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
