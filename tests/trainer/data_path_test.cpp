// Under a data directory (always, when a worker runs the trainer) a job's data paths stay inside it; run by
// hand without one, the trainer reads the path it is given.
#include <gtest/gtest.h>

#include "core/config_error.h"
#include "worker/trainer/trainer.h"

namespace gammalab::trainer {
namespace {

TEST(ResolveDataPath, UnderADataDirectoryRelativePathsResolveInsideIt) {
  EXPECT_EQ(resolve_data_path("data.train", "brown/train.bin", "/srv/data"), "/srv/data/brown/train.bin");
}

TEST(ResolveDataPath, UnderADataDirectoryAbsoluteAndClimbingPathsAreConfigErrors) {
  try {
    resolve_data_path("data.val", "../../etc/passwd", "/srv/data");
    FAIL() << "a climbing path was resolved";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "data.val");
    EXPECT_NE(std::string(e.what()).find("climbs out of the data directory"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resolve_data_path("data.train", "/etc/passwd", "/srv/data"), ConfigError);
}

TEST(ResolveDataPath, WithoutADataDirectoryThePathIsTheUsersOwn) {
  ::unsetenv("GAMMALAB_DATA_DIR");
  EXPECT_EQ(resolve_data_path("data.train", "/home/me/train.bin", ""), "/home/me/train.bin");
}

}  // namespace
}  // namespace gammalab::trainer
