#include "core/sweep/plan.h"

#include <cmath>

#include "core/param_count.h"

namespace gammalab {

SweepPlan plan_sweep(const Sweep& sweep, const PlanAssumptions& assumptions) {
  SweepPlan plan;
  plan.sweep = sweep.name;
  plan.assumptions = assumptions;
  for (const auto& job : sweep.jobs) {
    PlanRow row;
    row.name = job.name;
    row.config_hash = job.config_hash;
    row.params = job.params;
    const ParamCounts counts = count_params(job.config.model, job.config.scale);
    row.variant_params = counts.activated;
    row.fit_params = static_cast<std::int64_t>(std::llround(job_fitted_params(job.config)));
    row.tokens = job.tokens;
    row.steps = job.config.steps;
    row.start_step = job.parent ? job.branch_step : 0;
    // A branch trains its run's remaining steps; a program declaring its tokens trains those.
    row.trained_tokens = job.parent ? (job.config.steps - row.start_step) * job.config.batch_tokens
                                    : static_cast<std::int64_t>(std::llround(job_fitted_tokens(job.config)));
    row.flops_per_token = job_flops_per_token(job.config);
    row.flops = row.flops_per_token * double(row.trained_tokens);
    plan.total_tokens += row.trained_tokens;
    plan.total_flops += row.flops;
    plan.branches += job.parent ? 1 : 0;
    plan.independent_flops += row.flops_per_token * job_fitted_tokens(job.config);
    plan.rows.push_back(std::move(row));
  }
  plan.pf_days = plan.total_flops / (1e15 * 86400.0);
  const double sustained = assumptions.mfu * assumptions.peak_tflops * 1e12;
  plan.gpu_hours = sustained > 0 ? plan.total_flops / sustained / 3600.0 : 0.0;
  return plan;
}

nlohmann::json to_json(const SweepPlan& plan) {
  nlohmann::json jobs = nlohmann::json::array();
  for (const auto& row : plan.rows) {
    jobs.push_back({{"name", row.name},
                    {"config_hash", row.config_hash},
                    {"params", row.params},
                    {"variant_params", row.variant_params},
                    {"fit_params", row.fit_params},
                    {"tokens", row.tokens},
                    {"trained_tokens", row.trained_tokens},
                    {"steps", row.steps},
                    {"start_step", row.start_step},
                    {"flops_per_token", row.flops_per_token},
                    {"flops", row.flops}});
  }
  return {{"sweep", plan.sweep},
          {"jobs", std::move(jobs)},
          {"total",
           {{"jobs", plan.rows.size()},
            {"tokens", plan.total_tokens},
            {"flops", plan.total_flops},
            {"pf_days", plan.pf_days},
            {"gpu_hours", plan.gpu_hours},
            {"branches", plan.branches},
            {"independent_flops", plan.independent_flops},
            {"mfu", plan.assumptions.mfu},
            {"peak_tflops", plan.assumptions.peak_tflops}}}};
}

}  // namespace gammalab
