#pragma once
// From a finished job (its resolved config and stored loss curves) to one point of a scaling-law fit.
// Shared by `gammalab fit SWEEP` and the coordinator's automatic refits, so both see the same data.
#include <string>
#include <vector>

#include "core/job_config.h"
#include "core/metric.h"
#include "core/scaling/law.h"

namespace gammalab {

// The final loss of a run: the last val/loss if it is finite, else the mean of the last (up to) 5 finite
// train/loss points, which smooths the noise of a single batch. NaN if there is neither.
double final_loss(const std::vector<MetricPoint>& val_loss, const std::vector<MetricPoint>& train_loss);

// The value of a config field by dot path (e.g. "scale.variant", "model.preset") as text, for grouping.
// Throws ConfigError naming the path if the config has no such field.
std::string config_field_text(const JobConfig& config, const std::string& dot_path);

// N is the activated parameter count without the token embedding (Kaplan et al.); D the tokens trained on.
RunPoint job_run_point(const JobConfig& config, double loss, const std::string& group_by, const std::string& label);

}  // namespace gammalab
