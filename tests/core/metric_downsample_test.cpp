// M4 downsampling of a metric curve: every bucket keeps its extremes and its ends; short curves are exact.
#include "core/metric_downsample.h"
#include "core/metric_tiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

namespace gammalab {
namespace {

std::vector<MetricPoint> curve(std::size_t n, std::int64_t stride, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<MetricPoint> out;
  for (std::size_t i = 0; i < n; ++i) {
    const auto step = static_cast<std::int64_t>(i) * stride;
    out.push_back({step, step * 1024, "train/loss", 3.0 / std::sqrt(1.0 + static_cast<double>(i)) + noise(rng)});
  }
  return out;
}

// The bucket of a point under the plan for the whole curve.
std::int64_t bucket_of(const std::vector<MetricPoint>& pts, std::size_t i, std::size_t buckets) {
  return plan_downsample(pts.front().step, pts.back().step, buckets).bucket(pts[i].step);
}

TEST(MetricDownsample, ShortCurvesAreExact) {
  for (std::size_t n : {0u, 1u, 2u, 7u, 40u}) {
    const auto pts = curve(n, 3, 1);
    EXPECT_EQ(downsample(pts, 10), pts) << n;
  }
  const auto pts = curve(40, 1, 2);
  EXPECT_EQ(downsample(pts, 10), pts) << "exactly 4 per bucket";
  EXPECT_LT(downsample(curve(41, 1, 2), 10).size(), 41u);
}

TEST(MetricDownsample, EachBucketKeepsItsFirstLastLowestAndHighest) {
  for (std::uint32_t seed = 1; seed <= 5; ++seed) {
    for (std::size_t buckets : {1u, 3u, 17u, 100u}) {
      const auto pts = curve(5000 + seed * 37, 1 + seed, seed);
      const auto kept = downsample_indices(pts, buckets);
      ASSERT_TRUE(std::is_sorted(kept.begin(), kept.end()));
      ASSERT_EQ(std::adjacent_find(kept.begin(), kept.end()), kept.end()) << "no index twice";
      EXPECT_LE(kept.size(), 4 * buckets);
      EXPECT_EQ(kept.front(), 0u);
      EXPECT_EQ(kept.back(), pts.size() - 1);
      // Per bucket, from all the points: first, last, lowest and highest index.
      std::map<std::int64_t, std::vector<std::size_t>> members;
      for (std::size_t i = 0; i < pts.size(); ++i) members[bucket_of(pts, i, buckets)].push_back(i);
      EXPECT_LE(members.size(), buckets);
      std::map<std::int64_t, int> kept_per_bucket;
      for (std::size_t i : kept) ++kept_per_bucket[bucket_of(pts, i, buckets)];
      for (const auto& [b, idx] : members) {
        auto has = [&](std::size_t i) { return std::binary_search(kept.begin(), kept.end(), i); };
        EXPECT_TRUE(has(idx.front())) << "bucket " << b << " first";
        EXPECT_TRUE(has(idx.back())) << "bucket " << b << " last";
        auto by_value = [&](std::size_t a, std::size_t c) { return pts[a].value < pts[c].value; };
        const double lowest = pts[*std::min_element(idx.begin(), idx.end(), by_value)].value;
        const double highest = pts[*std::max_element(idx.begin(), idx.end(), by_value)].value;
        double kept_low = std::numeric_limits<double>::infinity(), kept_high = -kept_low;
        for (std::size_t i : kept) {
          if (bucket_of(pts, i, buckets) != b) continue;
          kept_low = std::min(kept_low, pts[i].value);
          kept_high = std::max(kept_high, pts[i].value);
        }
        EXPECT_EQ(kept_low, lowest) << "bucket " << b;
        EXPECT_EQ(kept_high, highest) << "bucket " << b;
        EXPECT_LE(kept_per_bucket[b], 4) << "bucket " << b;
      }
    }
  }
}

TEST(MetricDownsample, ASingleSpikeAndADivergenceSurvive) {
  auto pts = curve(100'000, 1, 9);
  pts[54'321].value = 50.0;                                           // a loss spike
  pts[77'777].value = std::numeric_limits<double>::quiet_NaN();      // a diverged step
  pts[88'888].value = -1.0;                                           // a dip
  const auto kept = downsample(pts, 50);
  EXPECT_LE(kept.size(), 200u);
  auto at = [&](std::int64_t step) {
    return std::find_if(kept.begin(), kept.end(), [&](const MetricPoint& p) { return p.step == step; });
  };
  ASSERT_NE(at(54'321), kept.end());
  EXPECT_EQ(at(54'321)->value, 50.0);
  ASSERT_NE(at(77'777), kept.end());
  EXPECT_TRUE(std::isnan(at(77'777)->value));
  ASSERT_NE(at(88'888), kept.end());
  EXPECT_EQ(at(88'888)->tokens, 88'888 * 1024) << "points are kept whole";
}

TEST(MetricDownsample, SparseStepsLeaveBucketsEmptyAndStillBounded) {
  // Evaluations every 1000 steps plus a dense tail: buckets over the steps, not over the points.
  std::vector<MetricPoint> pts;
  for (std::int64_t s = 0; s < 100'000; s += 1000) pts.push_back({s, s, "val/loss", 1.0});
  for (std::int64_t s = 100'000; s < 110'000; ++s) pts.push_back({s, s, "val/loss", static_cast<double>(s % 7)});
  const auto kept = downsample_indices(pts, 110);
  EXPECT_LE(kept.size(), 440u);
  EXPECT_EQ(kept.front(), 0u);
  EXPECT_EQ(kept.back(), pts.size() - 1);
  EXPECT_THROW(downsample_indices(pts, 0), std::invalid_argument);
}

}  // namespace
}  // namespace gammalab
