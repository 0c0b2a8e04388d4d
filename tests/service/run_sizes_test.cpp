// RunSizes (server/run_sizes.h): the runs table reads each config's size once per config hash, gives what
// reading the config gives, and stays bounded.
#include <gtest/gtest.h>

#include "proto/dashboard_json.h"
#include "server/run_sizes.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

TEST(RunSizes, AConfigIsReadOncePerHashAndGivesWhatReadingItGives) {
  const auto path = temp_db("run-sizes");
  {
    Store store(path.string());
    const std::string sweep = store.create_sweep(make_sweep("r", 3), "", "", false).sweep.id;
    RunSizes sizes;
    for (int read = 0; read < 2; ++read) {
      for (const auto& job : store.list_jobs(sweep)) {
        const RunSize kept = sizes.of(job.config_hash, job.config_json);
        const RunSize fresh = run_size(job.config_json);
        EXPECT_TRUE(kept.config_error.empty()) << kept.config_error;
        EXPECT_GT(kept.params, 0);
        EXPECT_EQ(kept.params, fresh.params);
        EXPECT_EQ(kept.total_params, fresh.total_params);
        EXPECT_EQ(kept.variant, fresh.variant);
        EXPECT_EQ(kept.total_steps, fresh.total_steps);
        EXPECT_DOUBLE_EQ(kept.compute, fresh.compute);
      }
      EXPECT_EQ(sizes.kept(), 3u) << "one per config, however often the runs are read";
    }
    EXPECT_EQ(sizes.of("", "not json").config_error.empty(), false);
    EXPECT_EQ(sizes.kept(), 3u) << "a job without a config hash is read, not kept";
  }
  std::filesystem::remove_all(path.parent_path());
}

TEST(RunSizes, StayBoundedWhateverTheConfigs) {
  RunSizes sizes;
  for (std::size_t i = 0; i <= RunSizes::kCapacity; ++i) sizes.of("hash-" + std::to_string(i), "{");
  EXPECT_LE(sizes.kept(), RunSizes::kCapacity);
  EXPECT_EQ(sizes.kept(), 1u) << "full: it starts afresh with the config it was asked for";
  EXPECT_FALSE(sizes.of("hash-0", "{").config_error.empty()) << "a config it cannot read keeps its error";
}

}  // namespace
}  // namespace gammalab::testing
