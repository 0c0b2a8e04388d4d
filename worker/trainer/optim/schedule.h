#pragma once
// Learning-rate multipliers (of the peak) per optimizer step; the first step is step 1.
#include <cstdint>

#include "core/job_config.h"

namespace gammalab::trainer {

// cosine: linear warmup, cosine to min_lr_ratio; wsd: warmup, hold until decay_start·steps, linear to 0;
// constant: warmup, then 1.
double lr_multiplier(const ScheduleSpec& schedule, std::int64_t step, std::int64_t total_steps);

}  // namespace gammalab::trainer
