#pragma once
// What a sweep will cost before it runs: per job its parameters, token budget, steps and training FLOPs,
// and the total in PF-days and GPU-hours at a stated utilisation and device peak. Used by `gammalab plan`.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/sweep/sweep.h"

namespace gammalab {

struct PlanAssumptions {
  double mfu = 0.4;           // model FLOPs utilisation
  double peak_tflops = 989;   // per device; H100/H200 SXM bf16 dense
};

struct PlanRow {
  std::string name;
  std::string config_hash;
  std::int64_t params = 0;          // `params` of the sweep's expressions (activated, baseline scale vectors)
  std::int64_t variant_params = 0;  // activated params of the job's own variant
  std::int64_t fit_params = 0;      // N as the fit counts it: variant_params less the embedding (run_point.h)
  std::int64_t tokens = 0;          // the budget
  std::int64_t trained_tokens = 0;  // (steps - start_step) * batch_tokens: what actually runs
  std::int64_t steps = 0;
  std::int64_t start_step = 0;      // a cooldown branch's: the parent's step it starts from (0: from scratch)
  double flops_per_token = 0;       // core flops_per_token (6 N + attention)
  double flops = 0;                 // flops_per_token * trained_tokens
};

struct SweepPlan {
  std::string sweep;
  PlanAssumptions assumptions;
  std::vector<PlanRow> rows;
  std::int64_t total_tokens = 0;    // trained tokens of all jobs
  double total_flops = 0;
  double pf_days = 0;               // total_flops / (1e15 FLOP/s * 86400 s)
  double gpu_hours = 0;             // total_flops / (mfu * peak) in hours
  std::size_t branches = 0;         // jobs that start from a parent's checkpoint (docs/branches.md)
  double independent_flops = 0;     // the same jobs each trained from step 0: the grid without branches
};

SweepPlan plan_sweep(const Sweep& sweep, const PlanAssumptions& assumptions = {});
nlohmann::json to_json(const SweepPlan& plan);

}  // namespace gammalab
