// Request field bounds (server/request_limits.h).
#include "server/request_limits.h"

#include <google/protobuf/descriptor.h>

#include <string>
#include <string_view>
#include <unordered_map>

#include "core/annotation.h"
#include "core/limits.h"
#include "core/shared_root.h"
#include "core/utf8_text.h"

namespace gammalab {

namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct FieldLimit {
  std::size_t bytes = request_limits::kDefaultStringBytes;  // each string (of a repeated field: each element)
  std::size_t count = request_limits::kDefaultRepeated;     // elements of a repeated field
  bool job_id = false;                                      // a canonical job id (core/shared_root.h)
};

// The fields whose bound is not the default, by full name. The values are generous for real clients.
const std::unordered_map<std::string_view, FieldLimit>& field_limits() {
  static const auto* table = new std::unordered_map<std::string_view, FieldLimit>{
      {"gammalab.v1.SubmitSweepRequest.yaml", {.bytes = limits::kMaxSweepFileBytes}},
      {"gammalab.v1.SubmitSweepRequest.file_name", {.bytes = 1024}},
      {"gammalab.v1.ImportRunsRequest.Header.sweep_name", {.bytes = 256}},
      {"gammalab.v1.ImportRunsRequest.Header.description", {.bytes = 1024}},
      {"gammalab.v1.ImportRunsRequest.Run.name", {.bytes = 256}},
      {"gammalab.v1.ImportRunsRequest.Run.config_json", {.bytes = 64 * 1024}},
      {"gammalab.v1.ImportRunsRequest.Points.points", {.count = limits::kMaxPointsPerReport}},
      // A host name is at most 253 bytes (RFC 1035); a machine has at most a few dozen accelerators.
      // Notes and tags: the limits the coordinator states (core/annotation.h), so a refusal names one limit.
      {"gammalab.v1.AnnotateRequest.note", {.bytes = annotation_limits::kNoteBytes}},
      {"gammalab.v1.AnnotateRequest.add_tags", {.bytes = annotation_limits::kTagBytes, .count = annotation_limits::kTags}},
      {"gammalab.v1.AnnotateRequest.remove_tags",
       {.bytes = annotation_limits::kTagBytes, .count = annotation_limits::kTags}},
      {"gammalab.v1.SearchRequest.query", {.bytes = annotation_limits::kSearchBytes}},
      {"gammalab.v1.RegisterWorkerRequest.hostname", {.bytes = 255}},
      {"gammalab.v1.RegisterWorkerRequest.gpus", {.bytes = 128, .count = 1024}},
      {"gammalab.v1.RegisterWorkerRequest.worker_id", {.bytes = 128}},
      {"gammalab.v1.HeartbeatRequest.worker_id", {.bytes = 128}},
      {"gammalab.v1.HeartbeatRequest.running", {.count = 1024}},
      {"gammalab.v1.RunningJob.job_id", {.job_id = true}},
      {"gammalab.v1.LeaseJobRequest.worker_id", {.bytes = 128}},
      {"gammalab.v1.StartJobRequest.worker_id", {.bytes = 128}},
      {"gammalab.v1.StartJobRequest.job_id", {.job_id = true}},
      {"gammalab.v1.ReportMetricsRequest.job_id", {.job_id = true}},
      {"gammalab.v1.ReportMetricsRequest.points", {.count = limits::kMaxPointsPerReport}},
      {"gammalab.v1.MetricPoint.name", {.bytes = 256}},
      {"gammalab.v1.FinishJobRequest.worker_id", {.bytes = 128}},
      {"gammalab.v1.FinishJobRequest.job_id", {.job_id = true}},
      // The trainer's last words: the worker sends the log's first and last lines; the store keeps a cut.
      {"gammalab.v1.FinishJobRequest.error", {.bytes = 64 * 1024}},
      {"gammalab.v1.GetMetricsRequest.job_ids", {.count = limits::kMaxMetricJobIds}},
      {"gammalab.v1.GetMetricsRequest.names", {.bytes = 256, .count = limits::kMaxMetricNames}},
      {"gammalab.v1.CancelSweepRequest.job_ids", {.count = limits::kMaxJobsPerSweep}},
  };
  return *table;
}

FieldLimit limit_of(const FieldDescriptor& field) {
  // Keyed by descriptor, resolved from the names once: a report asks for the limits of each field of each of
  // its (up to 10,000) points, and a pointer hashes in a step where a full name hashes in one per byte.
  static const auto* by_field = [] {
    auto* table = new std::unordered_map<const FieldDescriptor*, FieldLimit>;
    for (const auto& [name, limit] : field_limits()) {
      const FieldDescriptor* known = google::protobuf::DescriptorPool::generated_pool()->FindFieldByName(std::string(name));
      if (known) table->emplace(known, limit);
    }
    return table;
  }();
  const auto it = by_field->find(&field);
  return it == by_field->end() ? FieldLimit{} : it->second;
}

// Where a field stands in the request, spelled out only for an error (a report holds 10,000 points).
struct Path {
  const Path* parent = nullptr;
  const FieldDescriptor* field = nullptr;
  int index = -1;  // of a repeated field's element
  std::string text() const {
    std::string head = parent ? parent->text() : std::string();
    if (field) head += (head.empty() ? "" : ".") + field->name();
    if (index >= 0) head += "[" + std::to_string(index) + "]";
    return head;
  }
};

grpc::Status too_large(const Path& path, const std::string& what, std::size_t limit, std::size_t got) {
  return {grpc::StatusCode::INVALID_ARGUMENT,
          path.text() + ": " + std::to_string(got) + " " + what + ", over the limit of " + std::to_string(limit)};
}

grpc::Status check_string(const Path& path, const FieldLimit& limit, const std::string& value) {
  if (value.size() > limit.bytes) return too_large(path, "bytes", limit.bytes, value.size());
  if (limit.job_id && !shared_root::is_job_id(value)) {
    // NOT_FOUND, as for a well-formed id no job has: no job is spelled that way.
    return {grpc::StatusCode::NOT_FOUND, path.text() + ": '" + utf8_head(value, 64) +
                                             "': no such job (ids are decimal numbers without leading zeros)"};
  }
  return grpc::Status::OK;
}

grpc::Status check_message(const Message& message, const Path& at);

grpc::Status check_field(const Message& message, const FieldDescriptor& field, const Path& parent) {
  const Reflection& reflection = *message.GetReflection();
  const FieldLimit limit = limit_of(field);
  const Path path{&parent, &field};
  if (field.is_repeated()) {
    const int n = reflection.FieldSize(message, &field);
    if (static_cast<std::size_t>(n) > limit.count) return too_large(path, "entries", limit.count, static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      const Path element{&parent, &field, i};
      if (field.cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
        std::string scratch;
        const std::string& value = reflection.GetRepeatedStringReference(message, &field, i, &scratch);
        if (grpc::Status s = check_string(element, limit, value); !s.ok()) return s;
      } else if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        if (grpc::Status s = check_message(reflection.GetRepeatedMessage(message, &field, i), element); !s.ok()) {
          return s;
        }
      }
    }
    return grpc::Status::OK;
  }
  if (field.cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
    std::string scratch;
    const std::string& value = reflection.GetStringReference(message, &field, &scratch);
    // An unset job id (proto3: empty) is left to the handler, which knows whether it needs one.
    if (value.empty()) return grpc::Status::OK;
    return check_string(path, limit, value);
  }
  if (field.cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE && reflection.HasField(message, &field)) {
    return check_message(reflection.GetMessage(message, &field), path);
  }
  return grpc::Status::OK;
}

grpc::Status check_message(const Message& message, const Path& at) {
  const auto* descriptor = message.GetDescriptor();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    if (grpc::Status s = check_field(message, *descriptor->field(i), at); !s.ok()) return s;
  }
  return grpc::Status::OK;
}

}  // namespace

grpc::Status check_request_limits(const Message& request) { return check_message(request, Path{}); }

}  // namespace gammalab
