#pragma once
// Runs a gRPC handler body, turning an exception (a storage error, say) into an INTERNAL status with its
// message, so one bad request never takes the coordinator down.
#include <exception>

#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>

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

}  // namespace gammalab
