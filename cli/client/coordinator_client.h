#pragma once
// Connecting to the coordinator and turning failed calls into clear errors. Shared by the CLI and tests.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/metric.h"
#include "gammalab/v1/gammalab.grpc.pb.h"
#include "rpc/client_channel.h"

namespace gammalab {

class RpcError : public std::runtime_error {
 public:
  RpcError(const std::string& what, const grpc::Status& status);
  grpc::StatusCode code() const { return code_; }

 private:
  grpc::StatusCode code_;
};

// With default_client_security() (rpc/client_channel.h): the token and TLS the CLI was given.
std::unique_ptr<v1::Coordinator::Stub> connect_coordinator(const std::string& address);

// Throws RpcError("what: message") unless status is OK; a coordinator that cannot be reached is said plainly.
void check(const grpc::Status& status, const std::string& what, const std::string& address = "");

// A context with a deadline, so a dead coordinator never hangs a command.
std::unique_ptr<grpc::ClientContext> rpc_context(int timeout_ms = 30000);

// Every job of a sweep (of `states`, or all), page by page (ListJobs replies are bounded); throws RpcError.
std::vector<v1::Job> list_all_jobs(v1::Coordinator::Stub& stub, const std::string& sweep_id,
                                   const std::vector<v1::JobState>& states, const std::string& address);

// Every worker that registered, page by page (ListWorkers replies are bounded); throws RpcError.
std::vector<v1::Worker> list_all_workers(v1::Coordinator::Stub& stub, const std::string& address);

// Every point of one job (of `names`, or all), ordered by (name, step), page by page (GetMetrics replies are
// bounded: a long curve takes several); throws RpcError.
std::vector<MetricPoint> fetch_job_metrics(v1::Coordinator::Stub& stub, const std::string& job_id,
                                           const std::vector<std::string>& names, const std::string& address);

}  // namespace gammalab
