#pragma once
// From a finished job (its resolved config and stored loss curves) to one point of a scaling-law fit.
// Shared by `gammalab fit SWEEP` and the coordinator's automatic refits, so both see the same data.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_field.h"  // config_field_text, for the group of a run
#include "core/job_config.h"
#include "core/metric.h"
#include "core/scaling/law.h"

namespace gammalab {

// The final loss of a run: the val loss of its last evaluation, taken at the end of training (the point at
// step == total_steps; the trainer always evaluates at its last step). NaN when there is no evaluation at the
// last step or its value is not finite: a curve cut short, or a run without val data, has no final loss, and
// a mean of train points would mix a different quantity (train batches, mid-schedule) into the fit.
double final_loss(const std::vector<MetricPoint>& val_loss, std::int64_t total_steps);

// Mean of the last (up to) 5 finite train/loss points: the end of the train curve with one batch's noise
// smoothed, for display next to the final loss. NaN without a finite point.
double recent_train_loss(const std::vector<MetricPoint>& train_loss);

// N is the activated parameter count without the token embedding (Kaplan et al.); D the tokens trained on.
RunPoint job_run_point(const JobConfig& config, double loss, const std::string& group_by, const std::string& label);

}  // namespace gammalab
