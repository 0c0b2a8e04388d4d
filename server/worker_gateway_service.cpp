#include "server/worker_gateway_service.h"

#include <spdlog/spdlog.h>

#include <map>
#include <vector>

#include "core/host_port.h"
#include "core/limits.h"
#include "core/metric_check.h"
#include "core/metric_names.h"
#include "core/shared_root.h"
#include "core/utf8_text.h"
#include "proto/convert.h"
#include "server/grpc_auth.h"
#include "server/guarded.h"
#include "server/job_files.h"
#include "server/prometheus_metrics.h"
#include "server/request_limits.h"

namespace gammalab {

namespace {

grpc::Status not_your_worker(const std::string& worker_id) {
  return {grpc::StatusCode::PERMISSION_DENIED,
          "worker " + utf8_head(worker_id, 64) + " registered with another token; this token cannot act for it"};
}

}  // namespace

// A worker's calls act only for the workers that registered with the caller's token (server/grpc_auth.h puts
// its id in the call). Without auth (--insecure-no-auth, loopback only) any caller acts for any worker.
grpc::Status WorkerGatewayService::caller(grpc::ServerContext* context, std::optional<std::int64_t>& token_id) const {
  // Without auth the header is not checked: a caller could name any token's id, so none is used.
  token_id = options_.insecure_no_auth ? std::nullopt : caller_token_id(*context);
  if (!token_id && !options_.insecure_no_auth) return {grpc::StatusCode::UNAUTHENTICATED, "no token"};
  return grpc::Status::OK;
}

grpc::Status WorkerGatewayService::check_worker(grpc::ServerContext* context, const std::string& worker_id) {
  std::optional<std::int64_t> token_id;
  if (grpc::Status s = caller(context, token_id); !s.ok()) return s;
  if (token_id && store_.worker_of_other_token(worker_id, *token_id)) return not_your_worker(worker_id);
  return grpc::Status::OK;
}

grpc::Status WorkerGatewayService::RegisterWorker(grpc::ServerContext* context, const v1::RegisterWorkerRequest* request,
                                                  v1::RegisterWorkerResponse* response) {
  return guarded(*request, [&] {
    std::optional<std::int64_t> token_id;
    if (grpc::Status s = caller(context, token_id); !s.ok()) return s;
    if (request->slots() < 1) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "slots: must be at least 1");
    std::vector<std::string> gpus(request->gpus().begin(), request->gpus().end());
    Store::WorkerQuota quota{options_.max_workers_per_token, options_.lease_timeout_ms};
    const std::string id =
        store_.register_worker(request->hostname(), request->slots(), gpus, request->worker_id(), token_id, &quota);
    if (quota.refused) {
      return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                          "workers: this worker token has " + std::to_string(quota.live) +
                              " live workers, the limit (--max-workers-per-token " +
                              std::to_string(options_.max_workers_per_token) +
                              "); give each machine its own worker token, or wait for dead workers' heartbeats to "
                              "lapse (" + std::to_string(options_.lease_timeout_ms / 1000) + " s)");
    }
    if (id.empty()) return not_your_worker(request->worker_id());
    response->set_worker_id(id);
    response->set_heartbeat_interval_ms(static_cast<int>(options_.heartbeat_interval_ms));
    response->set_lease_timeout_ms(static_cast<int>(options_.lease_timeout_ms));
    response->set_database_uid(store_.database_uid());
    spdlog::info("worker {} registered from {} with {} slots", id, request->hostname(), request->slots());
    return grpc::Status::OK;
  });
}

grpc::Status WorkerGatewayService::Heartbeat(grpc::ServerContext* context, const v1::HeartbeatRequest* request,
                                             v1::HeartbeatResponse* response) {
  return guarded(*request, [&] {
    if (grpc::Status s = check_worker(context, request->worker_id()); !s.ok()) return s;
    std::vector<std::pair<std::string, int>> running;
    for (const auto& r : request->running()) running.emplace_back(r.job_id(), r.attempt());
    HeartbeatResult result =
        store_.heartbeat(request->worker_id(), running, request->draining(), options_.lease_timeout_ms);
    response->set_known(result.known);
    for (auto& id : result.cancel_job_ids) response->add_cancel_job_ids(std::move(id));
    for (auto& id : result.lost_job_ids) response->add_lost_job_ids(std::move(id));
    return grpc::Status::OK;
  });
}

grpc::Status WorkerGatewayService::LeaseJob(grpc::ServerContext* context, const v1::LeaseJobRequest* request,
                                            v1::LeaseJobResponse* response) {
  return guarded(*request, [&] {
    if (grpc::Status s = check_worker(context, request->worker_id()); !s.ok()) return s;
    int free_slots = 1;  // a worker that does not say leases one slot at a time
    if (request->has_free_slots()) {
      const std::optional<int> slots = store_.worker_slots(request->worker_id());
      if (!slots) return grpc::Status::OK;  // unknown worker: no work (it registers again on its next heartbeat)
      if (request->free_slots() < 1 || request->free_slots() > *slots) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            "free_slots: must be in [1, " + std::to_string(*slots) + "] (the slots worker " +
                                utf8_head(request->worker_id(), 64) + " registered with), got " +
                                std::to_string(request->free_slots()));
      }
      free_slots = request->free_slots();
    }
    auto lease = store_.lease(request->worker_id(), options_.lease_timeout_ms, free_slots, options_.gang_wait_ms);
    if (lease) {
      response->set_attempt(lease->attempt);
      response->set_ckpt_dir(shared_root::job_ckpt_dir(lease->job.id).string());
      response->set_node(lease->node);
      response->set_nodes(std::max(1, lease->job.nodes));
      response->set_rendezvous(lease->rendezvous);
      if (lease->stored) {
        response->mutable_stored()->set_last_step(lease->stored->last_step);
        for (const std::string& name : lease->stored->names_at_last_step) {
          response->mutable_stored()->add_names_at_last_step(name);
        }
      }
      spdlog::info("job {} ({}) leased to worker {}, attempt {}, {} slot(s){}", lease->job.id, lease->job.name,
                   request->worker_id(), lease->attempt, lease->job.slots_per_node,
                   lease->job.nodes > 1 ? ", node " + std::to_string(lease->node) + " of " +
                                                std::to_string(lease->job.nodes)
                                          : std::string());
      *response->mutable_job() = to_proto(lease->job);
    }
    return grpc::Status::OK;
  });
}

grpc::Status WorkerGatewayService::StartJob(grpc::ServerContext* context, const v1::StartJobRequest* request,
                                            v1::StartJobResponse* response) {
  return guarded(*request, [&] {
    if (grpc::Status s = check_worker(context, request->worker_id()); !s.ok()) return s;
    if (!request->rendezvous().empty()) {
      // Handed to the gang's other workers, which make a trainer flag of it: checked here first.
      const auto endpoint = parse_host_port(request->rendezvous(), "rendezvous");
      if (const auto* why = std::get_if<std::string>(&endpoint)) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, *why);
      }
    }
    const bool accepted =
        store_.start(request->worker_id(), request->job_id(), request->attempt(), request->rendezvous());
    response->set_accepted(accepted);
    if (!accepted) {
      spdlog::info("job {} attempt {}: start on worker {} ignored (stale report)", request->job_id(),
                   request->attempt(), request->worker_id());
    }
    return grpc::Status::OK;
  });
}

namespace {

// The status of a refused report: the caller's fault (a stale attempt, another's job, too fast) told apart
// from a malformed report.
grpc::StatusCode status_of(IngestResult::Refusal refusal) {
  switch (refusal) {
    case IngestResult::Refusal::kUnknownJob: return grpc::StatusCode::NOT_FOUND;
    case IngestResult::Refusal::kNotHolder: return grpc::StatusCode::FAILED_PRECONDITION;
    case IngestResult::Refusal::kOtherToken: return grpc::StatusCode::PERMISSION_DENIED;
    case IngestResult::Refusal::kRateLimited: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    default: return grpc::StatusCode::INVALID_ARGUMENT;
  }
}

}  // namespace

grpc::Status WorkerGatewayService::ReportMetrics(grpc::ServerContext* context,
                                                 grpc::ServerReader<v1::ReportMetricsRequest>* reader,
                                                 v1::ReportMetricsResponse* response) {
  return guarded([&] {
    std::optional<std::int64_t> token_id;
    if (grpc::Status s = caller(context, token_id); !s.ok()) return s;
    grpc::Status refusal;
    const std::unique_ptr<LongCalls::Call> call = metric_streams_.enter(context, token_id, refusal);
    if (!call) return refusal;
    v1::ReportMetricsRequest request;
    while (reader->Read(&request)) {
      // Only points are activity: a stream kept open by empty reports is as idle as a silent one.
      if (request.points_size() > 0) call->touch();
      const std::string who = "job " + utf8_head(request.job_id(), 64) + " attempt " + std::to_string(request.attempt());
      // Every field bounded (points: limits::kMaxPointsPerReport), the job id canonical.
      if (grpc::Status bad = check_request_limits(request); !bad.ok()) {
        return refuse_metrics(bad.error_code(), who + ": " + bad.error_message());
      }
      std::vector<MetricPoint> points = from_proto(request.points());
      for (const MetricPoint& p : points) {
        if (std::string error = metric_point_error(p); !error.empty()) {
          return refuse_metrics(grpc::StatusCode::INVALID_ARGUMENT, who + ": " + error);
        }
      }
      keep_verified_branch_points(request.job_id(), points, who);
      // Fenced like every other worker write: only the attempt that holds the job reports for it, and only
      // through the token its worker registered with; the rate is charged after that, to the holder only.
      IngestFence fence;
      fence.token_id = token_id;
      fence.admit = [&](std::size_t n) {
        return metric_rate_.admit(request.job_id(), n, MetricRateLimit::Clock::now());
      };
      IngestResult r = store_.add_metrics(request.job_id(), request.attempt(), points, &fence);
      if (r.refusal != IngestResult::Refusal::kNone) return refuse_metrics(status_of(r.refusal), r.reason);
      if (alerts_ != nullptr && r.stored > 0) alerts_->on_points(request.job_id(), request.attempt(), points);
      response->set_points_received(response->points_received() + r.received);
      response->set_points_stored(response->points_stored() + r.stored);
      CoordinatorMetrics::instance().points_ingested(r.received, r.stored);
    }
    return grpc::Status::OK;
  });
}

void WorkerGatewayService::keep_verified_branch_points(const std::string& job_id, std::vector<MetricPoint>& points,
                                                       const std::string& who) {
  // A report names a handful of branch points at most (one per cooldown budget); checking more would let a
  // report buy that many file looks on the coordinator.
  constexpr std::size_t kMaxChecksPerReport = 8;
  std::map<std::int64_t, std::string> problems;  // per announced step: why its checkpoint is not usable, or empty
  for (const MetricPoint& p : points) {
    if (p.name != metric_names::kBranchPoint || problems.contains(p.step)) continue;
    problems[p.step] = problems.size() < kMaxChecksPerReport
                           ? branch_checkpoint_problem(options_.shared_root, job_id, p.step)
                           : "more than " + std::to_string(kMaxChecksPerReport) + " branch points in one report";
  }
  const auto unverified = std::erase_if(points, [&](const MetricPoint& p) {
    return p.name == metric_names::kBranchPoint && !problems.at(p.step).empty();
  });
  if (unverified == 0) return;
  unverified_branch_points_ += static_cast<std::int64_t>(unverified);
  for (const auto& [step, problem] : problems) {
    if (problem.empty()) continue;
    spdlog::warn("{}: the branch point at step {} is not taken, its checkpoint is not usable here: {}; its "
                 "branches wait (for a resend, or for the run to succeed)",
                 who, step, utf8_head(problem, 512));
  }
}

grpc::Status WorkerGatewayService::refuse_metrics(grpc::StatusCode code, const std::string& reason) {
  const std::int64_t n = ++refused_metric_reports_;
  spdlog::warn("metric report refused ({} since start): {}", n, reason);
  return {code, utf8_head(reason, 1024)};  // the reason quotes the job id as sent: bounded, for the status
}

grpc::Status WorkerGatewayService::FinishJob(grpc::ServerContext* context, const v1::FinishJobRequest* request,
                                             v1::FinishJobResponse* response) {
  return guarded(*request, [&] {
    if (grpc::Status s = check_worker(context, request->worker_id()); !s.ok()) return s;
    const bool accepted = store_.finish(request->worker_id(), request->job_id(), request->attempt(),
                                        from_proto(request->outcome()),
                                        utf8_head(request->error(), limits::kMaxJobErrorBytes));
    response->set_accepted(accepted);
    if (accepted && alerts_ != nullptr) {
      alerts_->on_finished(request->job_id(), request->attempt(), request->exit_code(), request->error());
    }
    spdlog::info("job {} attempt {} finished on worker {}: {}{}", request->job_id(), request->attempt(),
                 request->worker_id(), v1::JobOutcome_Name(request->outcome()),
                 accepted ? "" : " (stale report ignored)");
    return grpc::Status::OK;
  });
}

}  // namespace gammalab
