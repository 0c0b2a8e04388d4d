// CSV points for `gammalab fit --points`: columns by header name, errors naming line and column.
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "core/scaling/csv_points.h"

namespace gammalab {
namespace {

std::string error_of(const std::string& text, const std::string& group_column = "") {
  try {
    parse_points_csv(text, "points.csv", group_column);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(ScalingCsvPoints, ReadsColumnsByNameInAnyOrder) {
  const auto runs = parse_points_csv(
      "loss,variant,params,tokens,compute,run\n"
      "3.1,baseline,1e8,2e9,,r1\n"
      "\n"
      "2.9, unified ,1e8,2e9,1.5e18,r2\n",
      "points.csv", "variant");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_DOUBLE_EQ(runs[0].params, 1e8);
  EXPECT_DOUBLE_EQ(runs[0].tokens, 2e9);
  EXPECT_DOUBLE_EQ(runs[0].compute, 0.0);  // empty: 6·N·D later
  EXPECT_DOUBLE_EQ(run_compute(runs[0]), 6 * 1e8 * 2e9);
  EXPECT_EQ(runs[0].group, "baseline");
  EXPECT_EQ(runs[0].label, "r1");
  EXPECT_EQ(runs[1].group, "unified");
  EXPECT_DOUBLE_EQ(runs[1].compute, 1.5e18);
}

TEST(ScalingCsvPoints, GroupColumnIsOptionalUnlessNamed) {
  const auto runs = parse_points_csv("params,tokens,loss\n1e8,2e9,3\n", "p.csv");
  EXPECT_EQ(runs.at(0).group, "");
  EXPECT_NE(error_of("params,tokens,loss\n1e8,2e9,3\n", "arch").find("no group column 'arch'"), std::string::npos);
}

// The seed column marks pairs: runs of different groups at one size, tokens and seed.
TEST(ScalingCsvPoints, SeedColumnIsOptionalAndMarksPairs) {
  const auto runs = parse_points_csv("params,tokens,loss,group,seed\n1e8,2e9,3,baseline,7\n1e8,2e9,2.9,unified,\n",
                                     "p.csv");
  ASSERT_EQ(runs.size(), 2u);
  ASSERT_TRUE(runs[0].seed);
  EXPECT_EQ(*runs[0].seed, 7u);
  EXPECT_FALSE(runs[1].seed) << "an empty seed is unknown";
  EXPECT_FALSE(parse_points_csv("params,tokens,loss\n1e8,2e9,3\n", "p.csv").at(0).seed);
  EXPECT_EQ(error_of("params,tokens,loss,seed\n1e8,2e9,3,s1\n"),
            "points.csv:2: column 'seed' (4): a seed must be a non-negative integer, got 's1'");
}

TEST(ScalingCsvPoints, ErrorsNameLineAndColumn) {
  EXPECT_EQ(error_of("params,tokens,loss\n1e8,2e9,3\n1e8,2e9,abc\n"),
            "points.csv:3: column 'loss' (3): not a number: 'abc'");
  EXPECT_EQ(error_of("params,tokens,loss\n-1,2e9,3\n"), "points.csv:2: column 'params' (1): must be positive and finite, got '-1'");
  EXPECT_EQ(error_of("params,tokens,loss\n1e8,2e9\n"), "points.csv:2: expected 3 fields, found 2");
  EXPECT_EQ(error_of("params,loss\n1e8,3\n"), "points.csv:1: header has no column 'tokens' (required: params,tokens,loss)");
  EXPECT_NE(error_of("").find("empty file"), std::string::npos);
  EXPECT_NE(error_of("params,tokens,loss\n").find("no data rows"), std::string::npos);
}

}  // namespace
}  // namespace gammalab
