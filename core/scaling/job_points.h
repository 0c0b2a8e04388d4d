#pragma once
// From a sweep's finished jobs (resolved config JSON and stored loss curves) to the points of a scaling-law
// fit: the one loop behind both `gammalab fit SWEEP` and the coordinator's automatic refits.
#include <string>
#include <vector>

#include "core/metric.h"
#include "core/scaling/law.h"

namespace gammalab {

// One job as a fit reads it.
struct JobLosses {
  std::string job_id, job_name, config_json;
  std::vector<MetricPoint> val_loss, train_loss;  // each ordered by step

  // Files a point under val_loss or train_loss by its name (metric_names::kLosses); other names are dropped.
  void add(MetricPoint point);
};

struct JobPoints {
  std::vector<RunPoint> runs;
  std::vector<std::string> job_ids;  // the job of each run, in the same order
};

// One run per job with a finite final loss (final_loss in core/scaling/run_point.h), grouped by the config
// field `group_by` and labelled with the job name; jobs without a finite final loss are left out. Throws for
// a config that does not parse or has no `group_by` field.
JobPoints job_points(const std::vector<JobLosses>& jobs, const std::string& group_by);

// The tune stage's runs at the values its pick gave the main stage: those whose config is a main job's but for
// the seed (and what only logs: log_every, eval_every, ckpt_every, sharpness_every, threads), as run points
// like job_points'. They are more seeds of that configuration (core/scaling/tune_seed_check.h); a tune run with
// a main run's own seed is that run again, and left out.
std::vector<RunPoint> tune_runs_at_pick(const std::vector<JobLosses>& main, const std::vector<JobLosses>& tune,
                                        const std::string& group_by);

}  // namespace gammalab
