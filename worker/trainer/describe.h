#pragma once
// `gammalab-train describe`: the parameter table of a model and variant (counts per group, scale-vector
// overhead as a fraction, the role and decay of every scale vector).
#include <string>

#include "core/job_config.h"

namespace gammalab::trainer {

std::string describe_model(const JobConfig& config);

}  // namespace gammalab::trainer
