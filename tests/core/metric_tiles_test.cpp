// Tiles of a metric curve: the cover of a step range by aligned tiles, the aligned bucketing, and Extremes
// that merge to the same answer in any order.
#include "core/metric_tiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace gammalab {
namespace {

TEST(MetricTiles, TheCoverIsContiguousAlignedAndShort) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> step(0, 3'000'000);
  for (int trial = 0; trial < 2000; ++trial) {
    std::int64_t begin = step(rng), end = step(rng);
    if (trial % 4 == 0) end = begin + trial % 300;  // short ranges, empty included
    if (end < begin) std::swap(begin, end);
    const int max_level = trial % (kTileLevels + 1);
    const auto pieces = tile_cover(begin, end, max_level);
    EXPECT_LE(pieces.size(), std::size_t(2 * max_level + 1));
    std::int64_t at = begin;
    for (const TileRange& piece : pieces) {
      ASSERT_LE(piece.level, max_level);
      ASSERT_LT(piece.first, piece.end) << "no empty piece";
      EXPECT_EQ(piece.first * tile_steps(piece.level), at) << "contiguous from " << begin;
      at = piece.end * tile_steps(piece.level);
    }
    EXPECT_EQ(at, end) << "covers [" << begin << ", " << end << ") exactly";
  }
}

TEST(MetricTiles, ThePlanKeepsWithinTheBucketsAndEveryTileInsideOne) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<std::int64_t> step(0, 20'000'000);
  for (int trial = 0; trial < 3000; ++trial) {
    std::int64_t first = step(rng), last = step(rng) / (1 + trial % 1000);
    if (last < first) std::swap(first, last);
    const std::size_t buckets = 1 + static_cast<std::size_t>(trial * 37) % 5000;
    const DownsamplePlan plan = plan_downsample(first, last, buckets);
    ASSERT_GE(plan.level, 0);
    ASSERT_LE(plan.level, kTileLevels);
    EXPECT_EQ(plan.bucket_steps % tile_steps(plan.level), 0) << "whole tiles per bucket";
    EXPECT_LE(plan.bucket(last) - plan.bucket(first) + 1, std::int64_t(buckets)) << first << ".." << last;
    if (buckets > 1) {
      // Close to the narrowest width that keeps within the buckets (at most 1/4 wider), in few tiles each.
      const auto narrowest = std::max<std::int64_t>(1, (last - first + std::int64_t(buckets) - 2) / std::int64_t(buckets - 1));
      EXPECT_LE(plan.bucket_steps, narrowest + narrowest / 4) << first << ".." << last << " in " << buckets;
      if (plan.level < kTileLevels) {
        EXPECT_LE(plan.bucket_steps / tile_steps(plan.level), 40);
        // Coarsest: the next level's whole tiles would widen the narrowest bucket by more than a quarter.
        const std::int64_t next = tile_steps(plan.level + 1);
        EXPECT_GT((narrowest + next - 1) / next * next, narrowest + narrowest / 4) << first << ".." << last;
      }
    }
    for (const TileRange& piece : tile_cover(first, last + 1, plan.level)) {
      const std::int64_t tile = tile_steps(piece.level);
      for (std::int64_t t : {piece.first, piece.end - 1}) {
        EXPECT_EQ(plan.bucket(t * tile), plan.bucket(t * tile + tile - 1)) << "a tile across two buckets";
      }
    }
  }
  EXPECT_EQ(plan_downsample(5, 5, 1).bucket(5), 0);
  EXPECT_THROW(plan_downsample(0, 10, 0), std::invalid_argument);
  EXPECT_THROW(plan_downsample(10, 9, 4), std::invalid_argument);
}

TEST(MetricTiles, ExtremesMergeToTheSameAnswerInAnyOrder) {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> coarse(0, 5);  // few distinct values: many ties
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::pair<std::int64_t, double>> points;
    for (std::int64_t s = 0; s < 200; ++s) {
      const int v = coarse(rng);
      points.push_back({s * 3 + trial, v == 5 ? (s % 2 ? nan : -inf) : double(v)});
    }
    Extremes sequential;
    for (auto [s, v] : points) sequential.add(s, 10 * s, v);
    // The reference, on its own terms: the earliest lowest finite value, the earliest non-finite or highest.
    std::int64_t low = -1, high = -1;
    for (auto [s, v] : points) {
      if (std::isfinite(v) && (low < 0 || v < points[std::size_t(low - trial) / 3].second)) low = s;
      const bool vf = std::isfinite(v);
      if (high < 0) high = s;
      const double h = points[std::size_t(high - trial) / 3].second;
      if ((!vf && std::isfinite(h)) || (vf && std::isfinite(h) && v > h)) high = s;
    }
    if (low < 0) low = points.front().first;  // every value non-finite
    EXPECT_EQ(sequential.low.step, low);
    EXPECT_EQ(sequential.high.step, high);
    EXPECT_EQ(sequential.first.step, points.front().first);
    EXPECT_EQ(sequential.last.step, points.back().first);
    // Each kept point whole: its tokens and value are those of its step.
    for (const KeptPoint& p : sequential.kept()) {
      EXPECT_EQ(p.tokens, 10 * p.step);
      const double v = points[std::size_t(p.step - trial) / 3].second;
      EXPECT_TRUE(p.value == v || (std::isnan(p.value) && std::isnan(v))) << p.step;
    }
    EXPECT_EQ(sequential.points, 200);
    // Cut into groups, merged in a shuffled order.
    std::vector<Extremes> groups(1 + trial % 17);
    for (std::size_t i = 0; i < points.size(); ++i) groups[(i * 7 + std::size_t(trial)) % groups.size()].add(points[i].first, 10 * points[i].first, points[i].second);
    std::shuffle(groups.begin(), groups.end(), rng);
    Extremes merged;
    for (const Extremes& g : groups) merged.merge(g);
    EXPECT_EQ(merged.points, sequential.points);
    EXPECT_EQ(merged.kept_steps(), sequential.kept_steps());
    EXPECT_TRUE(merged == sequential) << "the same four points, tokens and values included";
  }
}

}  // namespace
}  // namespace gammalab
