#include "cli/client/coordinator_client.h"

#include <variant>

#include "core/host_port.h"
#include "proto/convert.h"

namespace gammalab {

RpcError::RpcError(const std::string& what, const grpc::Status& status)
    : std::runtime_error(what), code_(status.error_code()) {}

std::unique_ptr<v1::Coordinator::Stub> connect_coordinator(const std::string& address) {
  // gRPC would read "http://host:port" as a DNS name and fail far from the cause.
  if (address.find("://") != std::string::npos) {
    throw std::invalid_argument("--server '" + address + "': a URL; give HOST:PORT of the coordinator's gRPC " +
                                "address (its --listen), e.g. 127.0.0.1:50051, not the dashboard's http:// address");
  }
  // Without a port gRPC dials port 0 and reports "127.0.0.1:0 not reachable", naming a port nobody gave. A
  // Unix socket ("unix:PATH") is passed on as it is.
  if (!address.starts_with("unix:")) {
    const auto parsed = parse_host_port(address, "--server");
    if (const auto* problem = std::get_if<std::string>(&parsed)) {
      throw std::invalid_argument(*problem + "; give HOST:PORT of the coordinator's gRPC address (its --listen), " +
                                  "e.g. 127.0.0.1:50051" + (address.find(':') == std::string::npos ? " (no port given)" : ""));
    }
  }
  return v1::Coordinator::NewStub(open_channel(address, default_client_security()));
}

void check(const grpc::Status& status, const std::string& what, const std::string& address) {
  if (status.ok()) return;
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    // An HTTP/1 server at the address, most often the dashboard's port given for the gRPC one: gRPC's transport
    // reports it as a reply it cannot parse as HTTP/2 (or, in some versions, names http1).
    const std::string& message = status.error_message();
    const bool http1 = message.find("parsing HTTP/2") != std::string::npos || message.find("http1") != std::string::npos;
    throw RpcError(what + ": coordinator " + (address.empty() ? "" : address + " ") + "not reachable (" +
                       status.error_message() + ")" +
                       (http1 ? "; that address answers HTTP/1: is it the dashboard's --http port? --server takes "
                                "the coordinator's gRPC address (its --listen)"
                              : ""),
                   status);
  }
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
    throw RpcError(what + ": the coordinator refused the token (" + status.error_message() +
                       "); give a user token in --token-file or $GAMMALAB_TOKEN",
                   status);
  }
  if (status.error_code() == grpc::StatusCode::PERMISSION_DENIED) {
    throw RpcError(what + ": " + status.error_message() + " (the CLI needs a user token)", status);
  }
  throw RpcError(what + ": " + status.error_message(), status);
}

std::unique_ptr<grpc::ClientContext> rpc_context(int timeout_ms) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  return context;
}

std::vector<v1::Job> list_all_jobs(v1::Coordinator::Stub& stub, const std::string& sweep_id,
                                   const std::vector<v1::JobState>& states, const std::string& address) {
  std::vector<v1::Job> jobs;
  v1::ListJobsRequest request;
  request.set_sweep_id(sweep_id);
  for (v1::JobState state : states) request.add_states(state);
  do {
    v1::ListJobsResponse page;
    check(stub.ListJobs(rpc_context().get(), request, &page), "jobs of sweep " + sweep_id, address);
    for (auto& job : *page.mutable_jobs()) jobs.push_back(std::move(job));
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return jobs;
}

std::vector<v1::Worker> list_all_workers(v1::Coordinator::Stub& stub, const std::string& address) {
  std::vector<v1::Worker> workers;
  v1::ListWorkersRequest request;
  do {
    v1::ListWorkersResponse page;
    check(stub.ListWorkers(rpc_context().get(), request, &page), "workers", address);
    for (auto& worker : *page.mutable_workers()) workers.push_back(std::move(worker));
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return workers;
}

std::vector<MetricPoint> fetch_job_metrics(v1::Coordinator::Stub& stub, const std::string& job_id,
                                           const std::vector<std::string>& names, const std::string& address) {
  std::vector<MetricPoint> points;
  v1::GetMetricsRequest request;
  request.add_job_ids(job_id);
  for (const std::string& name : names) request.add_names(name);
  request.set_after_step(-1);
  do {
    v1::GetMetricsResponse page;
    check(stub.GetMetrics(rpc_context().get(), request, &page), "metrics of job " + job_id, address);
    for (const v1::JobMetrics& job : page.jobs()) {
      for (const v1::MetricPoint& p : job.points()) points.push_back(from_proto(p));
    }
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  return points;
}

}  // namespace gammalab
