// encoded_size (proto/convert.h) is the size of the message to_proto makes, for every field at its default or
// not, negative and huge integers, NaN, -0.0 and long names: a reply's page budget counts it for every point.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "proto/convert.h"

namespace gammalab::testing {
namespace {

TEST(EncodedSize, IsTheSizeOfTheMessageToProtoMakes) {
  const std::int64_t kMax = std::numeric_limits<std::int64_t>::max(), kMin = std::numeric_limits<std::int64_t>::min();
  for (const std::int64_t step : {std::int64_t{0}, std::int64_t{1}, std::int64_t{127}, std::int64_t{128},
                                  std::int64_t{-1}, kMax, kMin}) {
    for (const std::int64_t tokens : {std::int64_t{0}, std::int64_t{300}, kMax}) {
      for (const std::string& name : {std::string(), std::string("train/loss"), std::string(300, 'n')}) {
        for (const double value : {0.0, -0.0, 3.25, std::nan(""), std::numeric_limits<double>::infinity()}) {
          const MetricPoint point{step, tokens, name, value};
          v1::MetricPoint message;
          to_proto(point, &message);
          EXPECT_EQ(encoded_size(point), message.ByteSizeLong())
              << step << " " << tokens << " " << name.size() << " " << value;
        }
      }
    }
  }
}

}  // namespace
}  // namespace gammalab::testing
