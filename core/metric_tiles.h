#pragma once
// Summaries of a metric curve at coarser resolutions ("tiles"), and the bucketing that lets a downsampled
// curve be read from them instead of from every point.
//
// A tile of level l (1..kTileLevels) covers the steps [t * tile_steps(l), (t + 1) * tile_steps(l)) of one
// metric of one job and holds the Extremes of its points: their count and its first, last, lowest and highest
// point, each whole (step, tokens, value), so that a downsampled curve is answered from tiles alone. Tiles of one level merge into the Extremes of any union of them, so a chart
// bucket made of whole tiles is summarised from a few hundred rows however many points it holds. Buckets
// are aligned to absolute multiples of their width, and the width to a tile level, so that every tile lies
// inside one bucket (core/metric_downsample.h reads the same buckets from the points themselves).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gammalab {

// Steps per tile of `level`: 1 (level 0: the points themselves), 8, 64, ..., 262,144. A bucket is whole tiles
// of the coarsest level that widens it by at most a quarter (so a chart gets at least 4/5 of the buckets it
// asked for): 1 to 40 rows read per bucket.
inline constexpr int kTileLevels = 6;
constexpr std::int64_t tile_steps(int level) { return std::int64_t{1} << (3 * level); }

// The ordering of values for "lowest" and "highest": a non-finite value (NaN or +-inf) is above every finite
// one, so a divergence is a bucket's highest and never its lowest, whichever way it went.
bool value_below(double a, double b);

// One point of a curve as a tile keeps it.
struct KeptPoint {
  std::int64_t step = 0, tokens = 0;
  double value = 0;
  bool operator==(const KeptPoint&) const = default;
};

// What a bucket keeps of its points: the first, the last, the lowest and the highest, by step. Equal values
// keep the earlier step, so the result does not depend on the order in which points or tiles are added.
struct Extremes {
  std::int64_t points = 0;  // 0: empty; the other fields are then meaningless
  KeptPoint first, last, low, high;

  void add(std::int64_t step, std::int64_t tokens, double value);
  void merge(const Extremes& other);
  // The distinct points among first, lowest, highest and last, by ascending step (1 to 4 of them).
  std::vector<KeptPoint> kept() const;
  std::vector<std::int64_t> kept_steps() const;  // their steps
  bool operator==(const Extremes&) const;  // NaN values equal to NaN: a tile read back is the tile written
};

// How the points with steps in [first_step, last_step] are cut into at most `buckets` buckets (at least 1): widths of
// at least span / (buckets - 1), in whole tiles of the coarsest level that widens them by at most a quarter.
struct DownsamplePlan {
  std::int64_t bucket_steps = 1;  // each bucket's width, a multiple of tile_steps(level)
  int level = 0;                  // the tile level the buckets are read from
  std::int64_t bucket(std::int64_t step) const { return step / bucket_steps; }
};
DownsamplePlan plan_downsample(std::int64_t first_step, std::int64_t last_step, std::size_t buckets);

// The steps [begin, end) as consecutive pieces, ascending: whole tiles of levels 1..max_level where they fit,
// single steps (level 0) at the ragged ends. A piece of level l is the tiles [first, end) of that level (for
// level 0: the steps [first, end)). At most 2 * max_level + 1 pieces.
struct TileRange {
  int level = 0;
  std::int64_t first = 0, end = 0;
};
std::vector<TileRange> tile_cover(std::int64_t begin, std::int64_t end, int max_level);

}  // namespace gammalab
