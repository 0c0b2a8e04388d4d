#include "core/scaling/run_point.h"

#include <cmath>
#include <limits>

#include "core/config_error.h"
#include "core/param_count.h"

namespace gammalab {

double final_loss(const std::vector<MetricPoint>& val_loss, std::int64_t total_steps) {
  if (val_loss.empty() || val_loss.back().step != total_steps || !std::isfinite(val_loss.back().value)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  return val_loss.back().value;
}

double recent_train_loss(const std::vector<MetricPoint>& train_loss) {
  double sum = 0;
  int n = 0;
  for (auto it = train_loss.rbegin(); it != train_loss.rend() && n < 5; ++it) {
    if (!std::isfinite(it->value)) continue;
    sum += it->value;
    ++n;
  }
  return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

RunPoint job_run_point(const JobConfig& config, double loss, const std::string& group_by, const std::string& label) {
  RunPoint run;
  run.tokens = job_fitted_tokens(config);
  run.params = job_fitted_params(config);
  run.compute = job_flops_per_token(config) * run.tokens;
  run.loss = loss;
  run.group = config_field_text(config, group_by);
  run.label = label;
  run.seed = config.seed;
  return run;
}

}  // namespace gammalab
