#pragma once
// Learning-rate multipliers (of the peak) per optimizer step; the first step is step 1.
#include <cstdint>

#include "core/job_config.h"

namespace gammalab {

// cosine: linear warmup, cosine to min_lr_ratio; wsd: warmup, hold until decay_start·steps (or until
// steps - decay_steps when that is set), linear to 0;
// constant: warmup, then 1.
double lr_multiplier(const ScheduleSpec& schedule, std::int64_t step, std::int64_t total_steps);

// WSD: the step after which the decay starts (a fraction of a step when decay_start gives it).
double wsd_decay_start(const ScheduleSpec& schedule, std::int64_t total_steps);

}  // namespace gammalab
