// The coordinator refits a sweep's scaling law when its succeeded jobs change, and versions every fit.
#include <cmath>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/scaling/run_point.h"
#include "core/param_count.h"
#include "core/scaling/fit.h"
#include "server/refitter.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

// Two variants over five model widths; the jobs are run to success with val losses from a known law.
Sweep ladder() {
  Sweep sweep;
  sweep.name = "ladder";
  for (const std::string variant : {"baseline", "unified"}) {
    for (int width : {32, 48, 64, 96, 128}) {
      SweepJob job;
      job.config.model.d_model = width;
      job.config.scale.variant = variant;
      job.name = variant + "/d" + std::to_string(width);
      job.config_hash = config_hash(job.config);
      sweep.jobs.push_back(std::move(job));
    }
  }
  return sweep;
}

void run_to_success(Store& store, const std::string& worker, int count) {
  for (int i = 0; i < count; ++i) {
    auto lease = store.lease(worker, 60000);
    ASSERT_TRUE(lease);
    const JobConfig config = job_config_from_json(nlohmann::json::parse(lease->job.config_json()));
    const double n = double(job_run_point(config, 0.0, "scale.variant", "").params);
    const double shift = config.scale.variant == "unified" ? 0.97 : 1.0;
    store.add_metrics(lease->job.id(), lease->attempt,
                      {{10, 1000, "val/loss", shift * (1.7 + 40.0 * std::pow(n, -0.35))}});
    ASSERT_TRUE(store.finish(worker, lease->job.id(), lease->attempt, v1::JOB_OUTCOME_SUCCEEDED, ""));
  }
}

TEST(Refitter, FitsWhenSucceededJobsChangeAndVersionsEachFit) {
  quiet_solver_logging();
  const auto path = temp_db("refitter");
  Store store(path.string());
  const auto sweep = store.create_sweep(ladder(), "", "ladder.yaml", false).sweep;
  RefitOptions options;
  options.enabled = false;  // drive it by hand
  options.bootstrap = 20;
  Refitter refitter(store, options);
  const std::string worker = store.register_worker("host", 1, {}, "");

  EXPECT_EQ(refitter.refit(sweep.id()), 0) << "nothing finished: nothing to fit";
  run_to_success(store, worker, 8);  // baseline x5, unified x3
  EXPECT_EQ(refitter.refit(sweep.id()), 1);
  EXPECT_EQ(refitter.refit(sweep.id()), 0) << "same jobs: no new version";
  run_to_success(store, worker, 2);
  EXPECT_EQ(refitter.refit(sweep.id()), 2);

  const auto fits = store.fits(sweep.id(), /*latest_only=*/false);
  ASSERT_EQ(fits.size(), 2u);
  EXPECT_EQ(fits[0].version(), 2);
  EXPECT_EQ(fits[0].job_ids_size(), 10);
  EXPECT_EQ(fits[1].job_ids_size(), 8);
  EXPECT_EQ(fits[0].group_by(), "scale.variant");
  const auto report = nlohmann::json::parse(fits[0].report_json());
  EXPECT_EQ(report.at("groups").size(), 2u) << report.dump(2);
  EXPECT_EQ(store.fits(sweep.id(), true).size(), 1u);
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
