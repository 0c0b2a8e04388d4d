#include "core/edit_distance.h"

#include <gtest/gtest.h>

namespace gammalab {
namespace {

TEST(EditDistance, CountsInsertionsDeletionsSubstitutions) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("d_modle", "d_model"), 1u);
  EXPECT_EQ(edit_distance("bsae", "base"), 1u);
}

TEST(EditDistance, SuggestsOnlyPlausibleTypos) {
  const std::vector<std::string> keys = {"batch_tokens", "steps", "seed", "model"};
  EXPECT_EQ(closest_match("step", keys), "steps");
  EXPECT_EQ(closest_match("batch_token", keys), "batch_tokens");
  EXPECT_EQ(closest_match("zzzzzz", keys), "");
  EXPECT_EQ(did_you_mean("modl", keys), " (did you mean 'model'?)");
  EXPECT_EQ(did_you_mean("completely_different", keys), "");
}

}  // namespace
}  // namespace gammalab
