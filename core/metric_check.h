#pragma once
// What a metric point must be to be stored: one of the metrics gammalab-train reports (metric_names.h), at a
// step and token count a job can reach (limits.h), with a finite value in the metric's range (a loss, a rate
// or a count is never negative). The coordinator checks every point a worker reports against this before it
// stores any of them; the trainer's own values meet it, or the run stops (a non-finite loss is a failed run,
// not a curve with a gap).
#include <string>

#include "core/metric.h"

namespace gammalab {

// Empty when `p` may be stored; otherwise why not, naming the metric, the field and the value, e.g.
// "metric 'train/loss' at step 40: value nan is not finite".
std::string metric_point_error(const MetricPoint& p);

}  // namespace gammalab
