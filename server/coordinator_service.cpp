// The Coordinator gRPC service: each call read from its request, answered by one operation of the application
// layer (server/coordinator/coordinator.h) and written into its reply.
#include "server/coordinator_service.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/limits.h"
#include "core/utf8_text.h"
#include "proto/convert.h"
#include "server/grpc_auth.h"
#include "server/guarded.h"

namespace gammalab {

namespace {

grpc::Status to_grpc(const absl::Status& status) {
  return {static_cast<grpc::StatusCode>(status.code()), std::string(status.message())};
}

coordinator::PageRequest page_request(int size, const std::string& token) { return {size, token}; }

// A page's rows into a repeated field of their messages, and its next token.
template <typename Record, typename Message>
void write_page(coordinator::Page<Record> page, google::protobuf::RepeatedPtrField<Message>& out, std::string* next) {
  out.Reserve(static_cast<int>(page.items.size()));
  for (const Record& row : page.items) *out.Add() = to_proto(row);
  *next = std::move(page.next_token);
}

}  // namespace

grpc::Status CoordinatorService::SubmitSweep(grpc::ServerContext*, const v1::SubmitSweepRequest* request,
                                             v1::SubmitSweepResponse* response) {
  return guarded(*request, [&] {
    coordinator::Submitted submitted = app_.submit_sweep(request->yaml(), request->file_name(), request->rerun());
    *response = submit_reply(submitted.sweep, submitted.jobs_created, submitted.jobs_reused, submitted.problems);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ImportRuns(grpc::ServerContext* context,
                                            grpc::ServerReader<v1::ImportRunsRequest>* reader,
                                            v1::ImportRunsResponse* response) {
  return guarded([&] {
    grpc::Status refusal;
    const std::unique_ptr<LongCalls::Call> call =
        imports_.enter(context, options_.insecure_no_auth ? std::nullopt : caller_token_id(*context), refusal);
    if (!call) return refusal;
    // Read whole, bounded (a run's points, the runs, all points: core/scaling/imported_runs.h), before anything
    // is stored: an import is one transaction.
    v1::ImportRunsRequest request;
    std::string name, description;
    std::vector<ImportedRun> runs;
    std::size_t points = 0;
    bool header = false;
    const auto refuse = [](const std::string& why) { return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, why); };
    while (reader->Read(&request)) {
      call->touch();
      if (grpc::Status bad = check_request_limits(request); !bad.ok()) return bad;
      switch (request.part_case()) {
        case v1::ImportRunsRequest::kHeader:
          if (header) return refuse("header: sent twice");
          header = true;
          name = request.header().sweep_name();
          description = request.header().description();
          break;
        case v1::ImportRunsRequest::kRun: {
          if (!header) return refuse("run: before the header");
          if (runs.size() >= kMaxImportedRuns) {
            return refuse("runs: more than the limit of " + std::to_string(kMaxImportedRuns));
          }
          ImportedRun run;
          run.name = request.run().name();
          const nlohmann::json json = nlohmann::json::parse(request.run().config_json(), nullptr, false);
          if (!json.is_object()) return refuse("run " + utf8_head(run.name, 64) + ": config_json: not a JSON object");
          try {
            run.config = job_config_from_json(json);
          } catch (const std::exception& e) {
            return refuse("run " + utf8_head(run.name, 64) + ": config_json: " + e.what());
          }
          runs.push_back(std::move(run));
          break;
        }
        case v1::ImportRunsRequest::kPoints: {
          if (runs.empty()) return refuse("points: before the first run");
          points += static_cast<std::size_t>(request.points().points_size());
          if (points > kMaxImportedPoints) {
            return refuse("points: more than the limit of " + std::to_string(kMaxImportedPoints) + " in one import");
          }
          std::vector<MetricPoint> more = from_proto(request.points().points());
          auto& into = runs.back().points;
          into.insert(into.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
          break;
        }
        default:
          return refuse("part: empty message");
      }
    }
    // A stream that broke off (the client gone, or ended by the watchdog) reads as one that ended: what came is
    // not the whole import, and nothing of it is stored.
    if (context->IsCancelled()) return grpc::Status(grpc::StatusCode::CANCELLED, "the import broke off; nothing stored");
    if (!header) return refuse("header: none sent");
    const std::size_t run_count = runs.size();
    auto sweep = app_.import_runs(name, description, std::move(runs));
    if (!sweep.ok()) return to_grpc(sweep.status());
    *response->mutable_sweep() = to_proto(*sweep);
    response->set_runs(static_cast<int>(run_count));
    response->set_points(static_cast<std::int64_t>(points));
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListSweeps(grpc::ServerContext*, const v1::ListSweepsRequest* request,
                                            v1::ListSweepsResponse* response) {
  return guarded(*request, [&] {
    auto page = app_.list_sweeps(page_request(request->page_size(), request->page_token()));
    if (!page.ok()) return to_grpc(page.status());
    write_page(std::move(*page), *response->mutable_sweeps(), response->mutable_next_page_token());
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetSweep(grpc::ServerContext*, const v1::GetSweepRequest* request,
                                          v1::Sweep* response) {
  return guarded(*request, [&] {
    auto sweep = app_.sweep(request->sweep_id());
    if (!sweep.ok()) return to_grpc(sweep.status());
    *response = to_proto(*sweep);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* request,
                                          v1::ListJobsResponse* response) {
  return guarded(*request, [&] {
    // A state this build does not know matches no job: a filter of only such states lists none.
    std::vector<JobState> states;
    for (int s : request->states()) {
      if (const std::optional<JobState> state = from_proto(static_cast<v1::JobState>(s))) states.push_back(*state);
    }
    if (states.empty() && !request->states().empty()) {
      auto sweep = app_.sweep(request->sweep_id());
      return sweep.ok() ? grpc::Status::OK : to_grpc(sweep.status());
    }
    auto page = app_.list_jobs(request->sweep_id(), states, page_request(request->page_size(), request->page_token()));
    if (!page.ok()) return to_grpc(page.status());
    write_page(std::move(*page), *response->mutable_jobs(), response->mutable_next_page_token());
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetJob(grpc::ServerContext*, const v1::GetJobRequest* request, v1::Job* response) {
  return guarded(*request, [&] {
    auto job = app_.job(request->job_id());
    if (!job.ok()) return to_grpc(job.status());
    *response = to_proto(*job);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::CancelSweep(grpc::ServerContext*, const v1::CancelSweepRequest* request,
                                             v1::CancelSweepResponse* response) {
  return guarded(*request, [&] {
    auto cancelled = app_.cancel_sweep(request->sweep_id(), {request->job_ids().begin(), request->job_ids().end()});
    if (!cancelled.ok()) return to_grpc(cancelled.status());
    response->set_cancelled(*cancelled);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::RetryJob(grpc::ServerContext*, const v1::RetryJobRequest* request, v1::Job* response) {
  return guarded(*request, [&] {
    auto retried = app_.retry_job(request->job_id());
    if (!retried.ok()) return to_grpc(retried.status());
    *response = to_proto(*retried);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::WatchSweep(grpc::ServerContext* context, const v1::WatchSweepRequest* request,
                                            grpc::ServerWriter<v1::SweepUpdate>* writer) {
  return guarded(*request, [&] {
    auto sweep = app_.sweep(request->sweep_id());
    if (!sweep.ok()) return to_grpc(sweep.status());
    grpc::Status refusal;
    // Ended by the registry's watchdog (IsCancelled below) when its token is revoked.
    const std::unique_ptr<LongCalls::Call> call =
        watches_.enter(context, options_.insecure_no_auth ? std::nullopt : caller_token_id(*context), refusal);
    if (!call) return refusal;
    const std::string id = sweep->id;
    std::uint64_t seen = store_.version();
    // An update carries only the jobs that changed for this watcher, so ten watchers of a large sweep receive
    // its changes, not the whole sweep four times a second.
    coordinator::WatchMemory memory;
    while (!context->IsCancelled()) {
      auto changes = app_.watch_round(id, memory);
      if (!changes.ok()) return to_grpc(changes.status());
      v1::SweepUpdate update;
      *update.mutable_sweep() = to_proto(changes->sweep);
      std::size_t bytes = update.sweep().ByteSizeLong();
      bool written = true;
      for (const JobRecord& record : changes->jobs) {
        v1::Job job = to_proto(record);
        const std::size_t size = job.ByteSizeLong() + 8;
        if (update.jobs_size() > 0 && bytes + size > limits::kMaxReplyBytes) {
          written = writer->Write(update);  // a full update; the rest follow in the next
          if (!written) break;
          update.clear_jobs();
          bytes = update.sweep().ByteSizeLong();
        }
        bytes += size;
        *update.add_jobs() = std::move(job);
      }
      if (!written) break;
      update.set_complete(true);
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
  return guarded(*request, [&] {
    coordinator::StepRange range;
    range.after_step = request->after_step();
    auto page = app_.metrics({request->job_ids().begin(), request->job_ids().end()},
                             {request->names().begin(), request->names().end()}, range,
                             page_request(request->page_size(), request->page_token()));
    if (!page.ok()) return to_grpc(page.status());
    for (const coordinator::JobSeries& series : page->items) {
      v1::JobMetrics* out = response->add_jobs();
      out->set_job_id(series.job_id);
      to_proto(series.points, out->mutable_points());
    }
    response->set_next_page_token(std::move(page->next_token));
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListWorkers(grpc::ServerContext*, const v1::ListWorkersRequest* request,
                                             v1::ListWorkersResponse* response) {
  return guarded(*request, [&] {
    auto page = app_.list_workers(page_request(request->page_size(), request->page_token()));
    if (!page.ok()) return to_grpc(page.status());
    write_page(std::move(*page), *response->mutable_workers(), response->mutable_next_page_token());
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetJobLog(grpc::ServerContext*, const v1::GetJobLogRequest* request,
                                           v1::GetJobLogResponse* response) {
  return guarded(*request, [&] {
    // The end of the log, never more than a reply may carry: a log is as long as its trainer made it.
    const std::size_t most = limits::kMaxReplyBytes;
    const std::size_t asked = request->tail_bytes() > 0 ? static_cast<std::size_t>(request->tail_bytes()) : most;
    auto log = app_.log_tail(request->job_id(), std::min(asked, most));
    if (!log.ok()) return to_grpc(log.status());
    // A link or another kind of file at the log: the reason, never what it points at.
    if (!log->tail.refused.empty()) return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, log->tail.refused);
    if (!log->tail.exists) return grpc::Status(grpc::StatusCode::NOT_FOUND, "job " + log->job_id + " has no log yet");
    response->set_text(std::move(log->tail.text));
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetFits(grpc::ServerContext*, const v1::GetFitsRequest* request,
                                         v1::GetFitsResponse* response) {
  return guarded(*request, [&] {
    auto page = app_.fits(request->sweep_id(), request->latest_only(),
                          page_request(request->page_size(), request->page_token()));
    if (!page.ok()) return to_grpc(page.status());
    write_page(std::move(*page), *response->mutable_fits(), response->mutable_next_page_token());
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::Annotate(grpc::ServerContext*, const v1::AnnotateRequest* request,
                                          v1::Annotation* response) {
  return guarded(*request, [&] {
    auto annotation = app_.annotate(request->sweep_id(), request->job_id(), from_proto(*request));
    if (!annotation.ok()) return to_grpc(annotation.status());
    *response = to_proto(*annotation);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListAnnotations(grpc::ServerContext*, const v1::ListAnnotationsRequest* request,
                                                 v1::ListAnnotationsResponse* response) {
  return guarded(*request, [&] {
    auto annotations = app_.annotations(request->sweep_id());
    if (!annotations.ok()) return to_grpc(annotations.status());
    *response = annotations_reply(*annotations);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::Search(grpc::ServerContext*, const v1::SearchRequest* request,
                                        v1::SearchResponse* response) {
  return guarded(*request, [&] {
    if (request->limit() < 0) return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "limit: must not be negative");
    auto answer = app_.search(request->query(), static_cast<std::size_t>(request->limit()));
    if (!answer.ok()) return to_grpc(answer.status());
    *response = search_reply(answer->hits, answer->truncated);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListAlerts(grpc::ServerContext*, const v1::ListAlertsRequest* request,
                                            v1::ListAlertsResponse* response) {
  return guarded(*request, [&] {
    auto answer = app_.alerts(request->sweep_id(), request->after_id(), request->limit());
    if (!answer.ok()) return to_grpc(answer.status());
    *response = alerts_reply(answer->alerts, answer->truncated);
    return grpc::Status::OK;
  });
}

}  // namespace gammalab
