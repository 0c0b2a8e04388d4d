// The part of a metric line a coordinator lacks, given what it stores (core/metric_replay.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/metric.h"
#include "core/metric_replay.h"

namespace gammalab {
namespace {

const std::string kLine = format_metric_line(
    40, 4096, {{"train/loss", 2.5}, {"lr", 1e-3}, {"grad_norm", std::numeric_limits<double>::quiet_NaN()}});

TEST(MetricReplay, ALineAfterTheLastStoredStepIsPrintedWholeAndOneBeforeItNotAtAll) {
  EXPECT_EQ(unstored_part(kLine, {}), kLine) << "nothing stored";
  EXPECT_EQ(unstored_part(kLine, {39, {"train/loss", "lr", "grad_norm"}}), kLine);
  EXPECT_EQ(unstored_part(kLine, {41, {}}), std::nullopt);
  EXPECT_EQ(unstored_part(kLine, {40, {"train/loss", "lr", "grad_norm"}}), std::nullopt);
  EXPECT_EQ(unstored_part(kLine, {40, {"val/loss"}}), kLine) << "another line's metric stored at that step";
}

TEST(MetricReplay, ALineStoredInPartLosesOnlyTheStoredMetricsKeepingStepTokensAndValues) {
  const auto part = unstored_part(kLine, {40, {"lr", "val/loss"}});
  ASSERT_TRUE(part.has_value());
  const auto points = parse_metric_line(*part);
  ASSERT_TRUE(points.has_value());
  ASSERT_EQ(points->size(), 2u);
  for (const MetricPoint& p : *points) {
    EXPECT_EQ(p.step, 40);
    EXPECT_EQ(p.tokens, 4096);
    EXPECT_NE(p.name, "lr");
  }
  EXPECT_EQ((*points)[0].name, "grad_norm");
  EXPECT_TRUE(std::isnan((*points)[0].value)) << "a non-finite value keeps its spelling";
  EXPECT_EQ((*points)[1].name, "train/loss");
  EXPECT_EQ((*points)[1].value, 2.5);
}

TEST(MetricReplay, AnythingButAMetricLineIsRefused) {
  for (const char* bad : {"", "{\"event\":\"start\"}", "{\"step\":1,\"tokens\":2,\"metrics\":{}}"}) {
    EXPECT_THROW(unstored_part(bad, {}), std::invalid_argument) << bad;
  }
}

TEST(MetricReplay, ALeasesWordIsCheckedNamingTheFieldTheLimitAndTheValue) {
  EXPECT_EQ(stored_metrics_error({40, {"train/loss", "lr"}}), "");
  EXPECT_EQ(stored_metrics_error({0, {}}), "");
  const auto says = [](const StoredMetrics& s, const std::string& part) {
    const std::string error = stored_metrics_error(s);
    EXPECT_NE(error.find(part), std::string::npos) << error;
  };
  says({-2, {}}, "last step -2 is outside [0, 10000000000]");
  says({10'000'000'001, {"lr"}}, "step 10000000001 is outside");
  says({40, {"train/loss", "no/such"}}, "metric name 'no/such': not a metric gammalab-train reports");
  says({40, {"lr", "lr"}}, "metric 'lr' named twice");
  says({40, std::vector<std::string>(1001, "lr")}, "1001 names at the last step, more than the limit of 1000");
  says({40, {std::string(1 << 20, 'x')}}, "metric name of 1048576 bytes");
}

}  // namespace
}  // namespace gammalab
