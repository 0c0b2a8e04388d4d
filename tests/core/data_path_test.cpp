// Data paths are confined to the worker's data directory: a sweep that names an absolute path or climbs out
// with ".." is refused at the field, before any job exists; a plain relative path is accepted.
#include <gtest/gtest.h>

#include "core/data_path.h"
#include "sweep_test_support.h"

namespace gammalab {
namespace {

TEST(DataPath, RelativePathsInsideTheDataDirectoryAreAccepted) {
  EXPECT_EQ(data_path_error("brown/train.bin"), "");
  EXPECT_EQ(data_path_error("shards"), "");
  EXPECT_EQ(data_path_error("a/./b..c/d.bin"), "");  // ".." only as a whole component climbs
}

TEST(DataPath, AbsoluteAndClimbingPathsAreRefused) {
  EXPECT_NE(data_path_error("/etc/passwd").find("'/etc/passwd' is absolute"), std::string::npos);
  EXPECT_NE(data_path_error("../../etc/passwd").find("climbs out of the data directory"), std::string::npos);
  EXPECT_NE(data_path_error("brown/../../x").find("climbs out"), std::string::npos);
  EXPECT_NE(data_path_error(std::string("a\0b", 3)).find("NUL"), std::string::npos);
  const std::string error = data_path_error(std::string(5000, 'a'));
  EXPECT_NE(error.find("5000 bytes long, over the limit of 1024"), std::string::npos) << error;
}

TEST(DataPath, ASweepWithAnEscapingDataPathIsRefusedAtTheField) {
  const auto all = testing::problems(
      "base:\n  model: {preset: tiny-0.03m}\n  data: {train: /etc/passwd, val: ../secret/val.bin}\n");
  bool train = false, val = false;
  for (const auto& d : all) {
    train = train || (d.path == "base.data.train" && d.message.find("is absolute") != std::string::npos);
    val = val || (d.path == "base.data.val" && d.message.find("climbs out") != std::string::npos);
  }
  std::string listing;
  for (const auto& d : all) listing += d.to_string() + "\n";
  EXPECT_TRUE(train) << listing;
  EXPECT_TRUE(val) << listing;
}

}  // namespace
}  // namespace gammalab
