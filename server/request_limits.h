#pragma once
// Every string and repeated field of every gRPC request, bounded in one place before a handler reads it:
// a 3 MiB hostname or 300,000 GPU names sent with a valid token would otherwise be stored, logged whole and
// sent back in every list afterwards (past gRPC's 4 MiB reply limit: unreadable for everyone). The check walks
// the message by reflection, so a field added to the proto later is bounded too (by the defaults below).
// Job ids a worker sends must be canonical ("12", never "012"): the metric rate limit and the fences key on them.
#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <cstddef>

namespace gammalab {

namespace request_limits {
// Any string field not named in the table of request_limits.cpp: a name, an id, a path, a page token.
inline constexpr std::size_t kDefaultStringBytes = 4096;
// Any repeated field not named there.
inline constexpr std::size_t kDefaultRepeated = 10'000;
}  // namespace request_limits

// OK, or INVALID_ARGUMENT naming the field's path in the message, its limit and its size; NOT_FOUND for a job
// id that is not canonical (no job has it), quoting it.
grpc::Status check_request_limits(const google::protobuf::Message& request);

}  // namespace gammalab
