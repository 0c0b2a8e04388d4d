// The plan: per-job FLOPs from core flops_per_token, totals in PF-days and GPU-hours.
#include <gtest/gtest.h>

#include "core/param_count.h"
#include "core/sweep/plan.h"
#include "sweep_test_support.h"

namespace gammalab {
namespace {

TEST(SweepPlan, RowsAndTotals) {
  const Sweep sweep = testing::expand(R"(
base: {model: {preset: tiny-0.1m}, batch_tokens: 1024, steps: 50}
axes: {grid: {scale.variant: [baseline, unified]}}
)");
  PlanAssumptions assumptions;
  assumptions.mfu = 0.5;
  assumptions.peak_tflops = 100;
  const SweepPlan plan = plan_sweep(sweep, assumptions);
  ASSERT_EQ(plan.rows.size(), 2u);
  double total = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& config = sweep.jobs[i].config;
    EXPECT_EQ(plan.rows[i].trained_tokens, 50 * 1024);
    EXPECT_EQ(plan.rows[i].tokens, 50 * 1024);
    EXPECT_DOUBLE_EQ(plan.rows[i].flops, flops_per_token(config.model, config.scale) * 50 * 1024);
    EXPECT_EQ(plan.rows[i].variant_params, count_params(config.model, config.scale).activated);
    total += plan.rows[i].flops;
  }
  EXPECT_GT(plan.rows[1].variant_params, plan.rows[0].variant_params);  // unified adds vectors
  EXPECT_DOUBLE_EQ(plan.total_flops, total);
  EXPECT_DOUBLE_EQ(plan.pf_days, total / 1e15 / 86400);
  EXPECT_DOUBLE_EQ(plan.gpu_hours, total / (0.5 * 100e12) / 3600);
  const nlohmann::json json = to_json(plan);
  EXPECT_EQ(json["jobs"].size(), 2u);
  EXPECT_EQ(json["total"]["jobs"], 2);
  EXPECT_DOUBLE_EQ(json["total"]["gpu_hours"].get<double>(), plan.gpu_hours);
}

// 1 PF-day at 40% of 989 TFLOP/s is 86400 / (0.4 * 0.989) / 3600 GPU-hours.
TEST(SweepPlan, OnePetaflopDayInGpuHours) {
  Sweep sweep;
  SweepJob job;
  job.config.model.n_layers = 1;
  sweep.jobs.push_back(job);
  SweepPlan plan = plan_sweep(sweep);
  const double per_job = plan.total_flops;
  ASSERT_GT(per_job, 0);
  const double scale = 1e15 * 86400 / per_job;
  EXPECT_NEAR(plan.gpu_hours * scale, 86400.0 / (0.4 * 0.989) / 3600.0, 1e-6);
  EXPECT_NEAR(plan.pf_days * scale, 1.0, 1e-12);
}

}  // namespace
}  // namespace gammalab
