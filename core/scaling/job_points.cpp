// Jobs to scaling-law fit points (see core/scaling/job_points.h).
#include "core/scaling/job_points.h"

#include <cmath>

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

}  // namespace gammalab
