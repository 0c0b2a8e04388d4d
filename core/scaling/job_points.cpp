// Jobs to scaling-law fit points (see core/scaling/job_points.h).
#include "core/scaling/job_points.h"

#include <cmath>
#include <set>

#include <nlohmann/json.hpp>

#include "core/job_config.h"
#include "core/metric_names.h"
#include "core/scaling/run_point.h"

namespace gammalab {

void JobLosses::add(MetricPoint point) {
  if (point.name == metric_names::kValLoss) {
    val_loss.push_back(std::move(point));
  } else if (point.name == metric_names::kTrainLoss) {
    train_loss.push_back(std::move(point));
  }
}

JobPoints job_points(const std::vector<JobLosses>& jobs, const std::string& group_by) {
  JobPoints out;
  for (const JobLosses& job : jobs) {
    const JobConfig config = job_config_from_json(nlohmann::json::parse(job.config_json));
    const double loss = final_loss(job.val_loss, config.steps);
    if (!std::isfinite(loss)) continue;  // a run without a final loss has nothing to fit
    out.runs.push_back(job_run_point(config, loss, group_by, job.job_name));
    out.job_ids.push_back(job.job_id);
  }
  return out;
}

namespace {

// A config without what only changes what is logged, and (without_seed) without its seed: what seeds of one
// configuration share.
std::string configuration_key(const std::string& config_json, bool without_seed) {
  nlohmann::json config = nlohmann::json::parse(config_json);
  for (const char* field : {"log_every", "eval_every", "ckpt_every", "sharpness_every", "threads"}) {
    config.erase(field);
  }
  if (without_seed) config.erase("seed");
  return config.dump();
}

}  // namespace

std::vector<RunPoint> tune_runs_at_pick(const std::vector<JobLosses>& main, const std::vector<JobLosses>& tune,
                                        const std::string& group_by) {
  std::set<std::string> picked, main_runs;
  for (const JobLosses& job : main) {
    picked.insert(configuration_key(job.config_json, true));
    main_runs.insert(configuration_key(job.config_json, false));
  }
  // A tune run with a main run's seed is that run again (the trainer is deterministic), not another seed.
  std::vector<JobLosses> at_pick;
  for (const JobLosses& job : tune) {
    if (picked.contains(configuration_key(job.config_json, true)) &&
        !main_runs.contains(configuration_key(job.config_json, false))) {
      at_pick.push_back(job);
    }
  }
  return job_points(at_pick, group_by).runs;
}

}  // namespace gammalab
