#pragma once
// Runs a gRPC handler body, turning an exception (a storage error, say) into an INTERNAL status with its
// message, so one bad request never takes the coordinator down.
#include <exception>

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

#include "server/request_limits.h"

namespace gammalab {

template <typename F>
grpc::Status guarded(F&& handler) {
  try {
    return handler();
  } catch (const std::exception& e) {
    spdlog::error("request failed: {}", e.what());
    return {grpc::StatusCode::INTERNAL, e.what()};
  }
}

// The same for a request, once its fields passed their bounds (server/request_limits.h): every handler of
// a request goes through here, so no field reaches a handler, the store or a log unbounded.
template <typename F>
grpc::Status guarded(const google::protobuf::Message& request, F&& handler) {
  if (grpc::Status bad = check_request_limits(request); !bad.ok()) return bad;
  return guarded(std::forward<F>(handler));
}

}  // namespace gammalab
