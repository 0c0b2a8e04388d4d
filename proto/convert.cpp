// Core types <-> proto messages (see proto/convert.h).
#include "proto/convert.h"

#include "core/limits.h"
#include "core/utf8_text.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/util/time_util.h>

#include <bit>
#include <cstdint>

namespace gammalab {

v1::JobState to_proto(JobState state) {
  switch (state) {
    case JobState::kPending:
      return v1::JOB_STATE_PENDING;
    case JobState::kLeased:
      return v1::JOB_STATE_LEASED;
    case JobState::kRunning:
      return v1::JOB_STATE_RUNNING;
    case JobState::kSucceeded:
      return v1::JOB_STATE_SUCCEEDED;
    case JobState::kFailed:
      return v1::JOB_STATE_FAILED;
    case JobState::kCancelled:
      return v1::JOB_STATE_CANCELLED;
  }
  return v1::JOB_STATE_UNSPECIFIED;
}

std::optional<JobState> from_proto(v1::JobState state) {
  for (JobState s : kJobStates) {
    if (to_proto(s) == state) return s;
  }
  return std::nullopt;
}

AttemptEnd from_proto(v1::JobOutcome outcome) {
  switch (outcome) {
    case v1::JOB_OUTCOME_SUCCEEDED:
      return AttemptEnd::kSucceeded;
    case v1::JOB_OUTCOME_CANCELLED:
      return AttemptEnd::kCancelled;
    case v1::JOB_OUTCOME_HANDED_BACK:
      return AttemptEnd::kHandedBack;
    case v1::JOB_OUTCOME_FAILED_PERMANENTLY:
      return AttemptEnd::kFailedPermanently;
    case v1::JOB_OUTCOME_WORKER_FAULT:
      return AttemptEnd::kWorkerFault;
    default:
      return AttemptEnd::kFailed;
  }
}

namespace {

google::protobuf::Timestamp timestamp(std::int64_t ms) {
  return google::protobuf::util::TimeUtil::MillisecondsToTimestamp(ms);
}

}  // namespace

v1::Job to_proto(const JobRecord& job) {
  v1::Job out;
  out.set_id(job.id);
  out.set_sweep_id(job.sweep_id);
  out.set_name(job.name);
  out.set_config_hash(job.config_hash);
  out.set_config_json(job.config_json);
  out.set_state(to_proto(job.state));
  out.set_attempt(job.attempt);
  out.set_max_attempts(job.max_attempts);
  out.set_worker_id(job.worker_id);
  out.set_step(job.step);
  out.set_total_steps(job.total_steps);
  out.set_tokens(job.tokens);
  if (job.last_loss) {
    out.set_last_loss(*job.last_loss);
    out.set_has_loss(true);
  }
  out.set_tokens_per_s(job.tokens_per_s);
  *out.mutable_created_at() = timestamp(job.created_ms);
  if (job.started_ms) *out.mutable_started_at() = timestamp(*job.started_ms);
  if (job.finished_ms) *out.mutable_finished_at() = timestamp(*job.finished_ms);
  out.set_error(job.error);
  out.set_priority(job.priority);
  out.set_reused_from(job.reused_from);
  out.set_stage(job.stage);
  out.set_slots_per_node(job.slots_per_node);
  out.set_pending_reason(job.pending_reason);
  out.set_nodes(job.nodes);
  out.set_parent_id(job.parent_id);
  out.set_branch_step(job.branch_step);
  out.mutable_branch_points()->Add(job.branch_points.begin(), job.branch_points.end());
  out.set_branch_start_job_id(job.branch_start_job_id);
  out.set_uid(job.uid);
  out.set_branch_start_job_uid(job.branch_start_job_uid);
  return out;
}

v1::Sweep to_proto(const SweepRecord& sweep) {
  v1::Sweep out;
  out.set_id(sweep.id);
  out.set_name(sweep.name);
  out.set_priority(sweep.priority);
  out.set_max_attempts(sweep.max_attempts);
  *out.mutable_created_at() = timestamp(sweep.created_ms);
  out.set_source_yaml(sweep.source_yaml);
  out.set_file_name(sweep.file_name);
  out.mutable_job_counts()->insert(sweep.job_counts.begin(), sweep.job_counts.end());
  out.set_total_jobs(sweep.total_jobs);
  out.set_finished(sweep.finished);
  out.set_awaiting_main_stage(sweep.awaiting_main_stage);
  out.set_tune_report_json(sweep.tune_report_json);
  out.set_stage_error(sweep.stage_error);
  return out;
}

v1::Worker to_proto(const WorkerRecord& worker) {
  v1::Worker out;
  out.set_id(worker.id);
  out.set_hostname(worker.hostname);
  out.set_slots(worker.slots);
  out.mutable_gpus()->Add(worker.gpus.begin(), worker.gpus.end());
  *out.mutable_registered_at() = timestamp(worker.registered_ms);
  *out.mutable_last_heartbeat() = timestamp(worker.last_heartbeat_ms);
  out.set_alive(worker.alive);
  out.set_draining(worker.draining);
  out.mutable_running_job_ids()->Add(worker.running_job_ids.begin(), worker.running_job_ids.end());
  if (worker.paused_until_ms > 0) {
    *out.mutable_paused_until() = timestamp(worker.paused_until_ms);
    out.set_pause_reason(worker.pause_reason);
  }
  return out;
}

v1::Fit to_proto(const FitRecord& fit) {
  v1::Fit out;
  out.set_version(fit.version);
  *out.mutable_created_at() = timestamp(fit.created_ms);
  out.set_law(fit.law);
  out.set_group_by(fit.group_by);
  out.mutable_job_ids()->Add(fit.job_ids.begin(), fit.job_ids.end());
  out.set_report_json(fit.report_json);
  return out;
}

v1::Annotation to_proto(const Annotation& annotation) {
  v1::Annotation out;
  out.set_sweep_id(annotation.sweep_id);
  out.set_job_id(annotation.job_id);
  out.set_note(annotation.note);
  out.mutable_tags()->Add(annotation.tags.begin(), annotation.tags.end());
  out.set_updated_ms(annotation.updated_ms);
  return out;
}

v1::Alert to_proto(const Alert& alert) {
  v1::Alert out;
  out.set_id(alert.id);
  out.set_sweep_id(alert.sweep_id);
  out.set_job_id(alert.job_id);
  out.set_job_name(alert.job_name);
  out.set_attempt(alert.attempt);
  out.set_rule(alert.rule);
  if (alert.step) out.set_step(*alert.step);
  if (alert.value) out.set_value(*alert.value);
  out.set_message(alert.message);
  out.set_raised_ms(alert.raised_ms);
  return out;
}

v1::ListAlertsResponse alerts_reply(const std::vector<Alert>& alerts, bool truncated) {
  v1::ListAlertsResponse out;
  for (const Alert& a : alerts) *out.add_alerts() = to_proto(a);
  out.set_truncated(truncated);
  return out;
}

v1::ListAnnotationsResponse annotations_reply(const std::vector<Annotation>& annotations) {
  v1::ListAnnotationsResponse out;
  for (const Annotation& a : annotations) *out.add_annotations() = to_proto(a);
  return out;
}

v1::SearchResponse search_reply(const std::vector<SearchHit>& hits, bool truncated) {
  v1::SearchResponse out;
  for (const SearchHit& hit : hits) {
    v1::SearchHit* h = out.add_hits();
    *h->mutable_annotation() = to_proto(hit.annotation);
    h->set_sweep_name(hit.sweep_name);
    h->set_job_name(hit.job_name);
  }
  out.set_truncated(truncated);
  return out;
}

AnnotationChange from_proto(const v1::AnnotateRequest& request) {
  AnnotationChange out;
  if (request.has_note()) out.note = request.note();
  out.add_tags.assign(request.add_tags().begin(), request.add_tags().end());
  out.remove_tags.assign(request.remove_tags().begin(), request.remove_tags().end());
  return out;
}

void to_proto(const MetricPoint& point, v1::MetricPoint* out) {
  out->set_step(point.step);
  out->set_tokens(point.tokens);
  out->set_name(point.name);
  out->set_value(point.value);
}

std::size_t encoded_size(const MetricPoint& point) {
  using google::protobuf::io::CodedOutputStream;
  // proto3 leaves out a field at its default (0, "", +0.0); each field present is a one-byte tag and its value.
  std::size_t bytes = 0;
  if (point.step != 0) bytes += 1 + CodedOutputStream::VarintSize64(static_cast<std::uint64_t>(point.step));
  if (point.tokens != 0) bytes += 1 + CodedOutputStream::VarintSize64(static_cast<std::uint64_t>(point.tokens));
  if (!point.name.empty()) {
    bytes += 1 + CodedOutputStream::VarintSize32(static_cast<std::uint32_t>(point.name.size())) + point.name.size();
  }
  if (std::bit_cast<std::uint64_t>(point.value) != 0) bytes += 1 + sizeof(double);
  return bytes;
}

void to_proto(const std::vector<MetricPoint>& points, google::protobuf::RepeatedPtrField<v1::MetricPoint>* out) {
  out->Reserve(out->size() + static_cast<int>(points.size()));
  for (const MetricPoint& p : points) to_proto(p, out->Add());
}

MetricPoint from_proto(const v1::MetricPoint& point) {
  return {point.step(), point.tokens(), point.name(), point.value()};
}

std::vector<MetricPoint> from_proto(const google::protobuf::RepeatedPtrField<v1::MetricPoint>& points) {
  std::vector<MetricPoint> out;
  out.reserve(static_cast<std::size_t>(points.size()));
  for (const auto& p : points) out.push_back(from_proto(p));
  return out;
}

v1::SubmitSweepResponse submit_reply(const std::optional<SweepRecord>& sweep, int jobs_created, int jobs_reused,
                                     const std::vector<SweepDiagnostic>& problems) {
  v1::SubmitSweepResponse reply;
  if (sweep) *reply.mutable_sweep() = to_proto(*sweep);
  reply.set_jobs_created(jobs_created);
  reply.set_jobs_reused(jobs_reused);
  for (const SweepDiagnostic& p : problems) {
    if (static_cast<std::size_t>(reply.problems_size()) == limits::kMaxReportedProblems) break;
    v1::SweepProblem* out = reply.add_problems();
    out->set_file(utf8_head(utf8_valid(p.file), 256));
    out->set_line(p.line);
    out->set_column(p.column);
    out->set_path(utf8_head(utf8_valid(p.path), 256));
    out->set_message(utf8_head(utf8_valid(p.message), limits::kMaxProblemMessageBytes));
  }
  reply.set_problems_omitted(static_cast<int>(problems.size()) - reply.problems_size());
  return reply;
}

}  // namespace gammalab
