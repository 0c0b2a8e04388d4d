#pragma once
// The one mapping between core's types and their proto messages: JobState (core/job_state.h) <-> v1::JobState,
// v1::JobOutcome -> AttemptEnd, MetricPoint (core/metric.h) <-> v1::MetricPoint. The worker's relay, both services and the CLI use it.
#include <cstddef>
#include <optional>
#include <vector>

#include "core/job_state.h"
#include "core/metric.h"
#include "gammalab/v1/gammalab.pb.h"

namespace gammalab {

v1::JobState to_proto(JobState state);
// nullopt for JOB_STATE_UNSPECIFIED (and any value this build does not know).
std::optional<JobState> from_proto(v1::JobState state);
// A worker's word on how its attempt ended; JOB_OUTCOME_UNSPECIFIED (or a value this build does not know) counts
// as a failure that another attempt may mend.
AttemptEnd from_proto(v1::JobOutcome outcome);

void to_proto(const MetricPoint& point, v1::MetricPoint* out);
void to_proto(const std::vector<MetricPoint>& points, google::protobuf::RepeatedPtrField<v1::MetricPoint>* out);
MetricPoint from_proto(const v1::MetricPoint& point);
// The bytes of to_proto(point) when encoded (ByteSizeLong), without making the message: what a page that must
// stay under a reply's budget counts for every point it holds.
std::size_t encoded_size(const MetricPoint& point);
std::vector<MetricPoint> from_proto(const google::protobuf::RepeatedPtrField<v1::MetricPoint>& points);

}  // namespace gammalab
