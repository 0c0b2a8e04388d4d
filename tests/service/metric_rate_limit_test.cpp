// The per-job metric budget, on an explicit clock (no test here depends on how fast it runs): a burst is
// admitted whole, the next point is not, time refills it at the rate, jobs do not share a bucket, and
// buckets that have refilled are forgotten so that memory does not grow with every id ever sent.
#include <gtest/gtest.h>

#include "server/metric_rate_limit.h"

namespace gammalab {
namespace {

using Clock = MetricRateLimit::Clock;
using std::chrono::milliseconds;

TEST(MetricRateLimit, ABurstThenTheRate) {
  MetricRateLimit limit(/*per_second=*/100, /*burst=*/1000);
  const Clock::time_point t0{};
  EXPECT_TRUE(limit.admit("1", 1000, t0));
  EXPECT_FALSE(limit.admit("1", 1, t0)) << "the burst is spent";
  EXPECT_TRUE(limit.admit("2", 1000, t0)) << "another job has its own bucket";
  EXPECT_FALSE(limit.admit("1", 60, t0 + milliseconds(500))) << "half a second refills 50 points, not 60";
  EXPECT_TRUE(limit.admit("1", 50, t0 + milliseconds(500)));
  EXPECT_FALSE(limit.admit("1", 1, t0 + milliseconds(500)));
  EXPECT_FALSE(limit.admit("1", 1001, t0 + std::chrono::hours(1))) << "never more than the burst at once";
  EXPECT_TRUE(limit.admit("1", 1000, t0 + std::chrono::hours(1)));
}

TEST(MetricRateLimit, ARefusedRequestTakesNothing) {
  MetricRateLimit limit(10, 100);
  const Clock::time_point t0{};
  EXPECT_TRUE(limit.admit("1", 90, t0));
  EXPECT_FALSE(limit.admit("1", 20, t0));
  EXPECT_TRUE(limit.admit("1", 10, t0)) << "the refused 20 were not taken";
}

TEST(MetricRateLimit, RefilledBucketsAreForgotten) {
  MetricRateLimit limit(100, 1000);
  const Clock::time_point t0{};
  for (int i = 0; i < 500; ++i) EXPECT_TRUE(limit.admit(std::to_string(i), 10, t0));
  EXPECT_EQ(limit.tracked_jobs(), 500u);
  // 20 s later every bucket is full again: the next admit forgets them all but its own.
  EXPECT_TRUE(limit.admit("new", 1, t0 + std::chrono::seconds(20)));
  EXPECT_EQ(limit.tracked_jobs(), 1u);
}

}  // namespace
}  // namespace gammalab
