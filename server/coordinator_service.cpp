#include "server/coordinator_service.h"

#include <spdlog/spdlog.h>

#include "server/guarded.h"

#include <fstream>
#include <sstream>

#include "core/config_paths.h"
#include "core/limits.h"
#include "core/utf8_text.h"
#include "core/shared_root.h"
#include "core/sweep/sweep.h"
#include "core/utf8_text.h"
#include "proto/convert.h"

namespace gammalab {

namespace {

grpc::Status not_found(const std::string& what) { return {grpc::StatusCode::NOT_FOUND, what + " not found"}; }

// As many problems as fit in limits::kMaxStatusMessageBytes, one per line, then how many were left out.
std::string problems_message(const std::vector<SweepDiagnostic>& problems) {
  std::string out;
  std::size_t shown = 0;
  for (const auto& p : problems) {
    const std::string line = utf8_valid(p.to_string());
    if (out.size() + line.size() + 1 > limits::kMaxStatusMessageBytes - 100) break;  // room for the count
    out += (shown++ ? "\n" : "") + line;
  }
  if (shown < problems.size()) {
    out += (shown ? "\n" : "") + std::string("... and ") + std::to_string(problems.size() - shown) +
           " more problem(s); `gammalab validate FILE` lists them all";
  }
  return out;
}


}  // namespace

grpc::Status CoordinatorService::SubmitSweep(grpc::ServerContext*, const v1::SubmitSweepRequest* request,
                                             v1::SubmitSweepResponse* response) {
  return guarded([&] {
    SweepStages stages;
    try {
      SweepOptions options;
      options.preset_dir = model_preset_dir();
      stages =
          expand_stages(request->yaml(), request->file_name().empty() ? "sweep.yaml" : request->file_name(), options);
    } catch (const SweepError& e) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, problems_message(e.diagnostics()));
    }
    // A sweep with a tune stage starts with it; the main stage is added when it ends (server/tune_stage.h).
    const bool tune = stages.tune.has_value();
    const Sweep& first = tune ? *stages.tune : stages.main;
    SubmitResult result = store_.create_sweep(first, request->yaml(), request->file_name(), request->rerun(), tune);
    *response->mutable_sweep() = result.sweep;
    response->set_jobs_created(result.jobs_created);
    response->set_jobs_reused(result.jobs_reused);
    spdlog::info("sweep {} '{}': {} {}jobs ({} reused)", result.sweep.id(), first.name,
                 result.jobs_created + result.jobs_reused, tune ? "tune " : "", result.jobs_reused);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListSweeps(grpc::ServerContext*, const v1::ListSweepsRequest*,
                                            v1::ListSweepsResponse* response) {
  return guarded([&] {
    for (auto& s : store_.list_sweeps()) *response->add_sweeps() = std::move(s);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetSweep(grpc::ServerContext*, const v1::GetSweepRequest* request,
                                          v1::Sweep* response) {
  return guarded([&] {
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    *response = *sweep;
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* request,
                                          v1::ListJobsResponse* response) {
  return guarded([&] {
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    std::vector<v1::JobState> states;
    for (int s : request->states()) states.push_back(static_cast<v1::JobState>(s));
    for (auto& j : store_.list_jobs(sweep->id(), states)) *response->add_jobs() = std::move(j);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetJob(grpc::ServerContext*, const v1::GetJobRequest* request, v1::Job* response) {
  return guarded([&] {
    auto job = store_.find_job(request->job_id());
    if (!job) return not_found("job '" + request->job_id() + "'");
    *response = *job;
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::CancelSweep(grpc::ServerContext*, const v1::CancelSweepRequest* request,
                                             v1::CancelSweepResponse* response) {
  return guarded([&] {
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    std::vector<std::string> ids;
    for (const auto& id : request->job_ids()) {
      auto job = store_.find_job(id);
      if (!job || job->sweep_id() != sweep->id()) return not_found("job '" + id + "' in sweep " + sweep->id());
      ids.push_back(job->id());
    }
    response->set_cancelled(store_.cancel(sweep->id(), ids));
    if (ids.empty() && sweep->awaiting_main_stage()) {
      store_.refuse_main_stage(sweep->id(), "", "cancelled before its tune stage ended");
    }
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::RetryJob(grpc::ServerContext*, const v1::RetryJobRequest* request, v1::Job* response) {
  return guarded([&] {
    auto job = store_.find_job(request->job_id());
    if (!job) return not_found("job '" + request->job_id() + "'");
    auto retried = store_.retry(job->id());
    if (!retried) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "job " + job->id() + " is " +
                                                                     std::string(job_state_name(from_proto(job->state()).value())) +
                                                                     "; only failed or cancelled jobs "
                                                                     "can be retried");
    }
    *response = *retried;
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::WatchSweep(grpc::ServerContext* context, const v1::WatchSweepRequest* request,
                                            grpc::ServerWriter<v1::SweepUpdate>* writer) {
  return guarded([&] {
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    const std::string id = sweep->id();
    std::uint64_t seen = store_.version();
    while (!context->IsCancelled()) {
      v1::SweepUpdate update;
      *update.mutable_sweep() = *store_.find_sweep(id);
      for (auto& j : store_.list_jobs(id)) *update.add_jobs() = std::move(j);
      if (!writer->Write(update)) break;
      if (update.sweep().finished()) break;
      // Wake on any change, but at most a few times a second: metrics arrive continuously.
      seen = store_.wait_for_change(seen, std::chrono::seconds(2));
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetMetrics(grpc::ServerContext*, const v1::GetMetricsRequest* request,
                                            v1::GetMetricsResponse* response) {
  return guarded([&] {
    std::vector<std::string> names(request->names().begin(), request->names().end());
    for (const auto& job_id : request->job_ids()) {
      auto job = store_.find_job(job_id);
      if (!job) return not_found("job '" + job_id + "'");
      auto* out = response->add_jobs();
      out->set_job_id(job->id());
      to_proto(store_.metrics(job->id(), names, request->after_step()), out->mutable_points());
    }
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListWorkers(grpc::ServerContext*, const v1::ListWorkersRequest*,
                                             v1::ListWorkersResponse* response) {
  return guarded([&] {
    for (auto& w : store_.list_workers(options_.lease_timeout_ms)) *response->add_workers() = std::move(w);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetJobLog(grpc::ServerContext*, const v1::GetJobLogRequest* request,
                                           v1::GetJobLogResponse* response) {
  return guarded([&] {
    auto job = store_.find_job(request->job_id());
    if (!job) return not_found("job '" + request->job_id() + "'");
    std::ifstream in(options_.shared_root / shared_root::job_log_path(job->id()), std::ios::binary);
    if (!in) return grpc::Status(grpc::StatusCode::NOT_FOUND, "job " + job->id() + " has no log yet");
    std::ostringstream text;
    text << in.rdbuf();
    // The log holds whatever the trainer printed: valid UTF-8 only goes into the reply's string field, and a
    // tail starts at a character.
    const std::string all = text.str();
    response->set_text(request->tail_bytes() > 0 ? utf8_tail(all, static_cast<std::size_t>(request->tail_bytes()))
                                                 : utf8_valid(all));
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetFits(grpc::ServerContext*, const v1::GetFitsRequest* request,
                                         v1::GetFitsResponse* response) {
  return guarded([&] {
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    for (auto& fit : store_.fits(sweep->id(), request->latest_only())) *response->add_fits() = std::move(fit);
    return grpc::Status::OK;
  });
}

}  // namespace gammalab
