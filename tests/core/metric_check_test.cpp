// The range of each metric a worker may report: what is refused, and that the message names metric, field
// and value.
#include "core/metric_check.h"
#include "core/metric_names.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gammalab {
namespace {

std::string error_of(std::int64_t step, std::int64_t tokens, const std::string& name, double value) {
  return metric_point_error(MetricPoint{step, tokens, name, value});
}

TEST(MetricCheck, EveryMetricTheTrainerPrintsPassesWithAFiniteValue) {
  for (std::string_view name : metric_names::kAll) EXPECT_EQ(error_of(10, 1000, std::string(name), 1.5), "") << name;
  EXPECT_EQ(error_of(0, 0, "val/loss", 0.0), "") << "step 0 (the first evaluation) and a zero value";
  EXPECT_EQ(error_of(10, 1000, "sharpness", -0.25), "") << "a negative top eigenvalue";
}

TEST(MetricCheck, RefusalsNameTheMetricTheFieldAndTheValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(error_of(40, 4000, "train/loss", nan), "metric 'train/loss' at step 40: value nan is not finite");
  EXPECT_EQ(error_of(40, 4000, "sharpness", -inf), "metric 'sharpness' at step 40: value -inf is not finite");
  EXPECT_EQ(error_of(40, 4000, "lr", -0.001), "metric 'lr' at step 40: value -0.001 is negative");
  EXPECT_NE(error_of(-1, 0, "lr", 0.1).find("step -1 is outside [0, "), std::string::npos);
  EXPECT_NE(error_of(std::numeric_limits<std::int64_t>::max(), 0, "lr", 0.1).find("outside"), std::string::npos);
  EXPECT_NE(error_of(1, -7, "lr", 0.1).find("tokens -7 is outside"), std::string::npos);
  EXPECT_NE(error_of(1, 1, "loss\x1b[2J", 0.1).find("not a metric gammalab-train reports"), std::string::npos);
  EXPECT_EQ(error_of(1, 1, std::string(100000, 'x'), 0.1).find(std::string(100, 'x')), std::string::npos)
      << "a long name is not quoted back";
}

// A program's metrics of its own: "user/" and a plain name, any finite value of either sign; a malformed one is
// refused saying what the name must be.
TEST(MetricCheck, AUsersOwnMetricIsStoredByItsPrefixAndAPlainName) {
  EXPECT_EQ(error_of(10, 100, "user/accuracy", 0.93), "");
  EXPECT_EQ(error_of(10, 100, "user/layer.3/grad-norm_x", -2.5), "") << "either sign";
  EXPECT_EQ(error_of(10, 100, "user/" + std::string(64, 'a'), 1.0), "");
  EXPECT_EQ(error_of(10, 100, "user/accuracy", std::numeric_limits<double>::quiet_NaN()),
            "metric 'user/accuracy' at step 10: value nan is not finite");
  const std::string rule = "a metric of your own is \"user/\" and then 1 to 64 letters, digits, '_', '-', '.' or '/'";
  EXPECT_EQ(error_of(10, 100, "user/", 1.0), "metric name 'user/': " + rule);
  EXPECT_EQ(error_of(10, 100, "user/top 1", 1.0), "metric name 'user/top 1': " + rule);
  EXPECT_EQ(error_of(10, 100, "user/" + std::string(65, 'a'), 1.0), "metric name of 70 bytes: " + rule);
  EXPECT_NE(error_of(10, 100, "accuracy", 1.0).find("nor one of your own (\"user/NAME\")"), std::string::npos);
}

}  // namespace
}  // namespace gammalab
