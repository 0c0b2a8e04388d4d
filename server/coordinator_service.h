#pragma once
// The Coordinator gRPC service: what people and tools call (submit, list, watch, cancel, metrics), an adapter
// of the application layer (server/coordinator/coordinator.h) to gRPC's messages and status codes.
#include "core/limits.h"
#include "server/coordinator/coordinator.h"
#include "gammalab/v1/gammalab.grpc.pb.h"
#include "server/server_options.h"
#include "server/store.h"
#include "server/long_calls.h"

namespace gammalab {

class CoordinatorService final : public v1::Coordinator::Service {
 public:
  CoordinatorService(Store& store, const ServerOptions& options)
      : store_(store),
        options_(options),
        app_(store, options),
        watches_({.kind = "watch",
                  .kinds = "watches",
                  .total = limits::kMaxWatches,
                  .per_address = limits::kMaxWatchesPerClient,
                  .per_token = limits::kMaxWatchesPerToken},
                 options.insecure_no_auth ? std::string() : options.database),
        imports_({.kind = "import",
                  .kinds = "imports",
                  .total = 1,
                  .per_address = 1,
                  .per_token = 1,
                  .idle = std::chrono::seconds(30)},
                 options.insecure_no_auth ? std::string() : options.database) {}

  grpc::Status SubmitSweep(grpc::ServerContext*, const v1::SubmitSweepRequest*, v1::SubmitSweepResponse*) override;
  grpc::Status ImportRuns(grpc::ServerContext*, grpc::ServerReader<v1::ImportRunsRequest>*,
                          v1::ImportRunsResponse*) override;
  grpc::Status ListSweeps(grpc::ServerContext*, const v1::ListSweepsRequest*, v1::ListSweepsResponse*) override;
  grpc::Status GetSweep(grpc::ServerContext*, const v1::GetSweepRequest*, v1::Sweep*) override;
  grpc::Status ListJobs(grpc::ServerContext*, const v1::ListJobsRequest*, v1::ListJobsResponse*) override;
  grpc::Status GetJob(grpc::ServerContext*, const v1::GetJobRequest*, v1::Job*) override;
  grpc::Status CancelSweep(grpc::ServerContext*, const v1::CancelSweepRequest*, v1::CancelSweepResponse*) override;
  grpc::Status RetryJob(grpc::ServerContext*, const v1::RetryJobRequest*, v1::Job*) override;
  grpc::Status WatchSweep(grpc::ServerContext*, const v1::WatchSweepRequest*,
                          grpc::ServerWriter<v1::SweepUpdate>*) override;
  grpc::Status GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest*, v1::GetMetricsResponse*) override;
  grpc::Status ListWorkers(grpc::ServerContext*, const v1::ListWorkersRequest*, v1::ListWorkersResponse*) override;
  grpc::Status GetJobLog(grpc::ServerContext*, const v1::GetJobLogRequest*, v1::GetJobLogResponse*) override;
  grpc::Status GetFits(grpc::ServerContext*, const v1::GetFitsRequest*, v1::GetFitsResponse*) override;
  grpc::Status Annotate(grpc::ServerContext*, const v1::AnnotateRequest*, v1::Annotation*) override;
  grpc::Status ListAnnotations(grpc::ServerContext*, const v1::ListAnnotationsRequest*,
                               v1::ListAnnotationsResponse*) override;
  grpc::Status Search(grpc::ServerContext*, const v1::SearchRequest*, v1::SearchResponse*) override;
  grpc::Status ListAlerts(grpc::ServerContext*, const v1::ListAlertsRequest*, v1::ListAlertsResponse*) override;

  // Open WatchSweep calls: bounded, ended when their token is revoked.
  const LongCalls& watches() const { return watches_; }
  const LongCalls& imports() const { return imports_; }

 private:
  Store& store_;
  const ServerOptions& options_;
  coordinator::Coordinator app_;
  LongCalls watches_;  // open WatchSweep calls: each holds a thread of the server while it lasts
  // The ImportRuns call reading its runs: one at a time (each holds its runs in memory until it stores them),
  // ended by the watchdog when it sends nothing for 30 s, so a stalled client does not hold the door shut.
  LongCalls imports_;
};

}  // namespace gammalab
