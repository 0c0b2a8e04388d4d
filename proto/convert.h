#pragma once
// The one mapping between core's types and their proto messages: JobState (core/job_state.h) <-> v1::JobState,
// v1::JobOutcome -> AttemptEnd, MetricPoint (core/metric.h) <-> v1::MetricPoint, and the coordinator's records
// (core/job_record.h, core/sweep_record.h, core/worker_record.h, core/fit_record.h) -> v1::Job, v1::Sweep,
// v1::Worker, v1::Fit. The worker's relay, both services and the CLI use it; the store and the coordinator's
// operations never see a message.
#include <cstddef>
#include <optional>
#include <vector>

#include "core/alert.h"
#include "core/annotation.h"
#include "core/fit_record.h"
#include "core/job_record.h"
#include "core/job_state.h"
#include "core/metric.h"
#include "core/sweep/diagnostics.h"
#include "core/sweep_record.h"
#include "core/worker_record.h"
#include "gammalab/v1/gammalab.pb.h"

namespace gammalab {

v1::JobState to_proto(JobState state);
// nullopt for JOB_STATE_UNSPECIFIED (and any value this build does not know).
std::optional<JobState> from_proto(v1::JobState state);
// A worker's word on how its attempt ended; JOB_OUTCOME_UNSPECIFIED (or a value this build does not know) counts
// as a failure that another attempt may mend.
AttemptEnd from_proto(v1::JobOutcome outcome);

// Times become google.protobuf.Timestamp; an absent time (nullopt) an absent field; a job without a last loss
// has has_loss false.
v1::Job to_proto(const JobRecord& job);
v1::Sweep to_proto(const SweepRecord& sweep);
v1::Worker to_proto(const WorkerRecord& worker);
v1::Fit to_proto(const FitRecord& fit);
v1::Annotation to_proto(const Annotation& annotation);
v1::ListAnnotationsResponse annotations_reply(const std::vector<Annotation>& annotations);
v1::SearchResponse search_reply(const std::vector<SearchHit>& hits, bool truncated);
v1::Alert to_proto(const Alert& alert);
v1::ListAlertsResponse alerts_reply(const std::vector<Alert>& alerts, bool truncated);
// What an Annotate request asks to change (the coordinator checks it).
AnnotationChange from_proto(const v1::AnnotateRequest& request);
// Each record of a list, converted.
template <typename Record>
  requires requires(const Record& record) { to_proto(record); }
auto to_proto(const std::vector<Record>& records) {
  std::vector<decltype(to_proto(records.front()))> out;
  out.reserve(records.size());
  for (const Record& record : records) out.push_back(to_proto(record));
  return out;
}
// The bytes of the record's message when encoded: what a page that must stay under a reply's budget counts.
template <typename Record>
  requires requires(const Record& record) { to_proto(record).ByteSizeLong(); }
std::size_t encoded_size(const Record& record) {
  return to_proto(record).ByteSizeLong();
}

void to_proto(const MetricPoint& point, v1::MetricPoint* out);
void to_proto(const std::vector<MetricPoint>& points, google::protobuf::RepeatedPtrField<v1::MetricPoint>* out);
MetricPoint from_proto(const v1::MetricPoint& point);
// The bytes of to_proto(point) when encoded (ByteSizeLong), without making the message: what a page that must
// stay under a reply's budget counts for every point it holds.
std::size_t encoded_size(const MetricPoint& point);
std::vector<MetricPoint> from_proto(const google::protobuf::RepeatedPtrField<v1::MetricPoint>& points);

// A submit's reply: the stored sweep and its job counts, or a refused file's problems, bounded in number and
// length, valid UTF-8 whatever the file held. Both doors answer a submit with it (gRPC, and HTTP as its JSON).
v1::SubmitSweepResponse submit_reply(const std::optional<SweepRecord>& sweep, int jobs_created, int jobs_reused,
                                     const std::vector<SweepDiagnostic>& problems);

}  // namespace gammalab
