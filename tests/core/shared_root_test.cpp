// The shared root's names (core/shared_root.h): job ids a path may be built from, and checkpoint file names,
// which the trainer writes and the coordinator lists.
#include "core/shared_root.h"

#include <gtest/gtest.h>

namespace gammalab {
namespace {

TEST(SharedRoot, JobIdsAreDecimalRowIdsOnly) {
  EXPECT_TRUE(shared_root::is_job_id("1"));
  EXPECT_TRUE(shared_root::is_job_id("9223372036854775807"));
  for (const char* bad : {"", "0", "01", "../1", "/root", "1a", "12345678901234567890"}) {
    EXPECT_FALSE(shared_root::is_job_id(bad)) << bad;
  }
  EXPECT_EQ(shared_root::job_log_path("7"), std::filesystem::path("jobs/7/log.txt"));
  EXPECT_EQ(shared_root::job_ckpt_dir("7"), std::filesystem::path("jobs/7/ckpt"));
}

TEST(SharedRoot, CheckpointNamesRoundTripTheirStep) {
  EXPECT_EQ(shared_root::checkpoint_file_name(40), "ckpt_000000040.safetensors");
  EXPECT_EQ(shared_root::checkpoint_file_name(1234567890), "ckpt_1234567890.safetensors");
  for (std::int64_t step : {0LL, 40LL, 999999999LL, 1234567890LL}) {
    EXPECT_EQ(shared_root::checkpoint_step(shared_root::checkpoint_file_name(step)), step);
  }
  for (const char* other : {"latest", "ckpt_000000040.safetensors.sum", "ckpt_.safetensors", "ckpt_4x.safetensors",
                            "ckpt_-1.safetensors", "xckpt_1.safetensors", "ckpt_1234567890123456789.safetensors"}) {
    EXPECT_FALSE(shared_root::checkpoint_step(other)) << other;
  }
}

}  // namespace
}  // namespace gammalab
