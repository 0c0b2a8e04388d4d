// Core types <-> proto messages (see proto/convert.h).
#include "proto/convert.h"

#include <google/protobuf/io/coded_stream.h>

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
    default:
      return AttemptEnd::kFailed;
  }
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

}  // namespace gammalab
