#pragma once
// The WorkerGateway gRPC service: registration, heartbeats, leases, trainer starts, metric streams and job
// outcomes.
#include <atomic>
#include <cstdint>
#include <optional>
#include <string>

#include "core/limits.h"
#include "gammalab/v1/gammalab.grpc.pb.h"
#include "server/alert_center.h"
#include "server/long_calls.h"
#include "server/metric_rate_limit.h"
#include "server/server_options.h"
#include "server/store.h"

namespace gammalab {

class WorkerGatewayService final : public v1::WorkerGateway::Service {
 public:
  // `alerts`: told of the points stored and the attempts ended (null: no alert rules of its own).
  WorkerGatewayService(Store& store, const ServerOptions& options, AlertCenter* alerts = nullptr)
      : store_(store),
        options_(options),
        alerts_(alerts),
        metric_streams_({.kind = "metric stream",
                         .kinds = "metric streams",
                         .total = options.max_metric_streams,
                         .per_address = options.max_metric_streams_per_address,
                         .per_token = limits::kMaxMetricStreamsPerToken,
                         .idle = std::chrono::milliseconds(options.metric_stream_idle_ms)},
                        options.insecure_no_auth ? std::string() : options.database) {}

  grpc::Status RegisterWorker(grpc::ServerContext*, const v1::RegisterWorkerRequest*,
                              v1::RegisterWorkerResponse*) override;
  grpc::Status Heartbeat(grpc::ServerContext*, const v1::HeartbeatRequest*, v1::HeartbeatResponse*) override;
  grpc::Status LeaseJob(grpc::ServerContext*, const v1::LeaseJobRequest*, v1::LeaseJobResponse*) override;
  grpc::Status StartJob(grpc::ServerContext*, const v1::StartJobRequest*, v1::StartJobResponse*) override;
  grpc::Status ReportMetrics(grpc::ServerContext*, grpc::ServerReader<v1::ReportMetricsRequest>*,
                             v1::ReportMetricsResponse*) override;
  grpc::Status FinishJob(grpc::ServerContext*, const v1::FinishJobRequest*, v1::FinishJobResponse*) override;

  // ReportMetrics requests refused since start: a point out of its metric's range (core/metric_check.h), or a
  // report the store refused (unknown job: NOT_FOUND; a step past the job or going back: INVALID_ARGUMENT), a
  // request of more than limits::kMaxPointsPerReport points (INVALID_ARGUMENT), or one over the job's rate
  // (RESOURCE_EXHAUSTED: the worker resends it later).
  // Each request is stored whole or not at all; the stream ends at the first refused one.
  std::int64_t refused_metric_reports() const { return refused_metric_reports_; }
  // Branch-point points left out of reports because the coordinator found no usable checkpoint at their step
  // (server/job_files.h, branch_checkpoint_problem): the rest of the report is stored, and the branches wait
  // for a resend (a resumed trainer replays the announcement kept in its checkpoint) or for the run to succeed.
  std::int64_t unverified_branch_points() const { return unverified_branch_points_; }
  // Open ReportMetrics streams: bounded, ended when idle or when their token is revoked.
  const LongCalls& metric_streams() const { return metric_streams_; }

 private:
  grpc::Status refuse_metrics(grpc::StatusCode code, const std::string& reason);
  // Drops from `points` each branch_point whose checkpoint the coordinator cannot see whole, with a warning.
  void keep_verified_branch_points(const std::string& job_id, std::vector<MetricPoint>& points, const std::string& who);
  // The caller's token id (nullopt without auth); UNAUTHENTICATED when auth is on and the call has none.
  grpc::Status caller(grpc::ServerContext* context, std::optional<std::int64_t>& token_id) const;
  // PERMISSION_DENIED when worker_id registered with another token than the caller's.
  grpc::Status check_worker(grpc::ServerContext* context, const std::string& worker_id);

  Store& store_;
  const ServerOptions& options_;
  AlertCenter* alerts_;
  std::atomic<std::int64_t> refused_metric_reports_{0};
  std::atomic<std::int64_t> unverified_branch_points_{0};
  LongCalls metric_streams_;
  MetricRateLimit metric_rate_{limits::kMetricPointsPerSecondPerJob, limits::kMetricPointBurstPerJob};
};

}  // namespace gammalab
