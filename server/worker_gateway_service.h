#pragma once
// The WorkerGateway gRPC service: registration, heartbeats, leases, trainer starts, metric streams and job
// outcomes.
#include "gammalab/v1/gammalab.grpc.pb.h"
#include "server/server_options.h"
#include "server/store.h"

namespace gammalab {

class WorkerGatewayService final : public v1::WorkerGateway::Service {
 public:
  WorkerGatewayService(Store& store, const ServerOptions& options) : store_(store), options_(options) {}

  grpc::Status RegisterWorker(grpc::ServerContext*, const v1::RegisterWorkerRequest*,
                              v1::RegisterWorkerResponse*) override;
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*, v1::HeartbeatResponse*) override;
  grpc::Status LeaseJob(grpc::ServerContext*, const v1::LeaseJobRequest*, v1::LeaseJobResponse*) override;
  grpc::Status StartJob(grpc::ServerContext*, const v1::StartJobRequest*, v1::StartJobResponse*) override;
  grpc::Status ReportMetrics(grpc::ServerContext*, grpc::ServerReader<v1::ReportMetricsRequest>*,
                             v1::ReportMetricsResponse*) override;
  grpc::Status FinishJob(grpc::ServerContext*, const v1::FinishJobRequest*, v1::FinishJobResponse*) override;

 private:
  Store& store_;
  const ServerOptions& options_;
};

}  // namespace gammalab
