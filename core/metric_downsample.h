#pragma once
// Downsampling of one metric's curve for a chart: the points are cut into at most `buckets` buckets of
// steps (core/metric_tiles.h's plan: equal widths aligned to multiples of the width) and each bucket keeps its
// first, last, lowest and highest point (M4 aggregation). A chart `buckets` pixels wide draws the same line
// from these at most 4 points per bucket as from all of them: the vertical extent of every pixel column and
// the line into and out of it are kept, so a loss spike never vanishes. A non-finite value (a diverged step)
// counts as the highest of its bucket, so a divergence is never dropped either.
//
// This is the reference: it reads every point. The store answers the same from its tiles
// (server/store/metric_tiles.h) without reading them all.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/metric.h"

namespace gammalab {

// The fewest and most buckets a request may ask for: 1 pixel column is no chart, and more buckets than a
// screen has pixel columns (times a few, for a wide export) is a request for the full series.
inline constexpr std::int64_t kMinDownsampleBuckets = 1;
inline constexpr std::int64_t kMaxDownsampleBuckets = 100'000;

// Indices (ascending) of the points of `points` to keep. `points` are one metric's, in ascending step order
// with distinct steps. Every index when there are at most 4 * buckets points (the curve is drawn exactly);
// otherwise at most 4 per bucket of plan_downsample(first step, last step, buckets). `buckets` must be at
// least 1.
std::vector<std::size_t> downsample_indices(std::span<const MetricPoint> points, std::size_t buckets);

// The kept points themselves (the same as picking downsample_indices).
std::vector<MetricPoint> downsample(std::span<const MetricPoint> points, std::size_t buckets);

}  // namespace gammalab
