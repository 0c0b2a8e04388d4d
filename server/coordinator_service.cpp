#include "server/coordinator_service.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_split.h>
#include <spdlog/spdlog.h>

#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>

#include "core/config_paths.h"
#include "core/job_state.h"
#include "core/limits.h"
#include "core/shared_root.h"
#include "core/sweep/sweep.h"
#include "core/utf8_text.h"
#include "proto/convert.h"
#include "server/grpc_auth.h"
#include "server/guarded.h"
#include "server/job_files.h"
#include "server/pending_reason.h"

namespace gammalab {

namespace {

grpc::Status not_found(const std::string& what) { return {grpc::StatusCode::NOT_FOUND, what + " not found"}; }
grpc::Status invalid_argument(const std::string& what) { return {grpc::StatusCode::INVALID_ARGUMENT, what}; }

// A list request's page_size and page_token: the size to read (0 means the default) and the position after
// which to read (-1: from the start), or INVALID_ARGUMENT naming the field, the limit and the value.
grpc::Status page_arguments(int page_size, const std::string& page_token, std::size_t& size, std::int64_t& after) {
  if (page_size < 0 || page_size > limits::kMaxPageSize) {
    return invalid_argument("page_size: " + std::to_string(page_size) + " is outside 0.." +
                            std::to_string(limits::kMaxPageSize));
  }
  size = page_size == 0 ? limits::kDefaultPageSize : static_cast<std::size_t>(page_size);
  after = -1;
  if (!page_token.empty() && (!absl::SimpleAtoi(page_token, &after) || after < 0)) {
    return invalid_argument("page_token: '" + utf8_head(page_token, 64) + "' is not a token from a previous page");
  }
  return grpc::Status::OK;
}

// Moves `rows` into `out` while the reply stays within limits::kMaxReplyBytes (the first row always goes in):
// a page is bounded in bytes as well as in rows, whatever a stored row weighs. True when rows were left over
// for the next page.
template <typename Row>
bool add_within_reply_budget(std::vector<Row> rows, google::protobuf::RepeatedPtrField<Row>& out) {
  std::size_t bytes = 0;
  for (Row& row : rows) {
    const std::size_t size = row.ByteSizeLong() + 8;  // the row and its tag and length
    if (!out.empty() && bytes + size > limits::kMaxReplyBytes) return true;
    bytes += size;
    *out.Add() = std::move(row);
  }
  return false;
}

// Where a GetMetrics page starts: the index of a job in the request's job_ids, and within it where the page
// before ended (none: from its first point). The token is "JOB:STEP:NAME"; NAME last, as it may hold ':'.
struct MetricsPagePosition {
  int job = 0;
  std::optional<Store::MetricsResume> resume;
};

std::string metrics_page_token(int job, const std::optional<Store::MetricsResume>& resume) {
  if (!resume) return std::to_string(job) + ":-1:";
  return std::to_string(job) + ":" + std::to_string(resume->step) + ":" + resume->name;
}

// The position a token names, or INVALID_ARGUMENT: the token is the client's, and only a token this service
// made, for a request with as many jobs, is one.
grpc::Status metrics_page_position(const std::string& token, int jobs, MetricsPagePosition& at) {
  at = {};
  if (token.empty()) return grpc::Status::OK;
  const std::vector<absl::string_view> parts = absl::StrSplit(token, absl::MaxSplits(':', 2));
  std::int64_t step = 0;
  if (parts.size() != 3 || !absl::SimpleAtoi(parts[0], &at.job) || at.job < 0 || at.job >= jobs ||
      !absl::SimpleAtoi(parts[1], &step) || step < -1 || parts[2].size() > limits::kMaxKeyBytes) {
    return invalid_argument("page_token: '" + utf8_head(token, 64) + "' is not a token from a previous page");
  }
  if (step >= 0 || !parts[2].empty()) at.resume = Store::MetricsResume{std::string(parts[2]), step};
  return grpc::Status::OK;
}

// A refused file's problems into the reply (see SubmitSweepResponse): bounded in number and length, valid
// UTF-8 whatever the file held.
void add_problems(const std::vector<SweepDiagnostic>& problems, v1::SubmitSweepResponse* response) {
  for (const SweepDiagnostic& p : problems) {
    if (static_cast<std::size_t>(response->problems_size()) == limits::kMaxReportedProblems) break;
    v1::SweepProblem* out = response->add_problems();
    out->set_file(utf8_head(utf8_valid(p.file), 256));
    out->set_line(p.line);
    out->set_column(p.column);
    out->set_path(utf8_head(utf8_valid(p.path), 256));
    out->set_message(utf8_head(utf8_valid(p.message), limits::kMaxProblemMessageBytes));
  }
  response->set_problems_omitted(static_cast<int>(problems.size()) - response->problems_size());
}

}  // namespace

grpc::Status CoordinatorService::SubmitSweep(grpc::ServerContext*, const v1::SubmitSweepRequest* request,
                                             v1::SubmitSweepResponse* response) {
  return guarded(*request, [&] {
    SweepStages stages;
    try {
      SweepOptions options;
      options.preset_dir = model_preset_dir();
      stages =
          expand_stages(request->yaml(), request->file_name().empty() ? "sweep.yaml" : request->file_name(), options);
    } catch (const SweepError& e) {
      add_problems(e.diagnostics(), response);
      return grpc::Status::OK;
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

grpc::Status CoordinatorService::ListSweeps(grpc::ServerContext*, const v1::ListSweepsRequest* request,
                                            v1::ListSweepsResponse* response) {
  return guarded(*request, [&] {
    std::int64_t after = -1;
    std::size_t size = 0;
    if (grpc::Status bad = page_arguments(request->page_size(), request->page_token(), size, after); !bad.ok()) {
      return bad;
    }
    bool more = false;
    more = add_within_reply_budget(store_.list_sweeps_page(after, size, more), *response->mutable_sweeps()) || more;
    if (more) response->set_next_page_token(response->sweeps(response->sweeps_size() - 1).id());
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetSweep(grpc::ServerContext*, const v1::GetSweepRequest* request,
                                          v1::Sweep* response) {
  return guarded(*request, [&] {
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    *response = *sweep;
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListJobs(grpc::ServerContext*, const v1::ListJobsRequest* request,
                                          v1::ListJobsResponse* response) {
  return guarded(*request, [&] {
    std::int64_t after = -1;
    std::size_t size = 0;
    if (grpc::Status bad = page_arguments(request->page_size(), request->page_token(), size, after); !bad.ok()) {
      return bad;
    }
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    std::vector<v1::JobState> states;
    for (int s : request->states()) states.push_back(static_cast<v1::JobState>(s));
    Store::JobPage page = store_.list_jobs_page(sweep->id(), states, after, size);
    std::vector<v1::Job*> listed;
    for (v1::Job& job : page.jobs) listed.push_back(&job);
    explain_pending(store_, options_.lease_timeout_ms, listed);
    // The page also ends before the reply passes its byte budget (at least one job, however large).
    std::size_t bytes = 0;
    for (std::size_t i = 0; i < page.jobs.size(); ++i) {
      bytes += page.jobs[i].ByteSizeLong() + 8;
      if (i > 0 && bytes > limits::kMaxReplyBytes) {
        page.next_ordinal = page.ordinals[i - 1];
        break;
      }
      *response->add_jobs() = std::move(page.jobs[i]);
    }
    if (page.next_ordinal >= 0) response->set_next_page_token(std::to_string(page.next_ordinal));
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetJob(grpc::ServerContext*, const v1::GetJobRequest* request, v1::Job* response) {
  return guarded(*request, [&] {
    auto job = store_.find_job(request->job_id());
    if (!job) return not_found("job '" + request->job_id() + "'");
    explain_pending(store_, options_.lease_timeout_ms, {&*job});
    *response = *job;
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::CancelSweep(grpc::ServerContext*, const v1::CancelSweepRequest* request,
                                             v1::CancelSweepResponse* response) {
  return guarded(*request, [&] {
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
  return guarded(*request, [&] {
    auto job = store_.find_job(request->job_id());
    if (!job) return not_found("job '" + request->job_id() + "'");
    auto retried = store_.retry(job->id());
    if (!retried) {
      return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                          retry_refusal(job->id(), from_proto(job->state()).value()));
    }
    *response = *retried;
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::WatchSweep(grpc::ServerContext* context, const v1::WatchSweepRequest* request,
                                            grpc::ServerWriter<v1::SweepUpdate>* writer) {
  return guarded(*request, [&] {
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    grpc::Status refusal;
    // Ended by the registry's watchdog (IsCancelled below) when its token is revoked.
    const std::unique_ptr<LongCalls::Call> call =
        watches_.enter(context, options_.insecure_no_auth ? std::nullopt : caller_token_id(*context), refusal);
    if (!call) return refusal;
    const std::string id = sweep->id();
    std::uint64_t seen = store_.version();
    // What this watcher was last sent of each job, encoded: an update carries only the jobs whose encoding
    // changed, so ten watchers of a large sweep receive its changes, not the whole sweep four times a second.
    std::map<std::string, std::string> sent;
    while (!context->IsCancelled()) {
      v1::SweepUpdate update;
      *update.mutable_sweep() = *store_.find_sweep(id);
      update.mutable_sweep()->clear_source_yaml();  // GetSweep has these; an update needs the state only
      update.mutable_sweep()->clear_tune_report_json();
      std::size_t bytes = update.sweep().ByteSizeLong();
      bool written = true;
      for (auto& j : store_.list_jobs(id)) {
        j.clear_config_json();
        std::string encoded = j.SerializeAsString();
        auto it = sent.find(j.id());
        if (it != sent.end() && it->second == encoded) continue;
        if (update.jobs_size() > 0 && bytes + encoded.size() + 8 > limits::kMaxReplyBytes) {
          written = writer->Write(update);  // a full update; the rest follow in the next
          if (!written) break;
          update.clear_jobs();
          bytes = update.sweep().ByteSizeLong();
        }
        bytes += encoded.size() + 8;
        sent[j.id()] = std::move(encoded);
        *update.add_jobs() = std::move(j);
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
    if (request->page_size() < 0 || request->page_size() > limits::kMaxMetricPageSize) {
      return invalid_argument("page_size: " + std::to_string(request->page_size()) + " is outside 0.." +
                              std::to_string(limits::kMaxMetricPageSize));
    }
    MetricsPagePosition at;
    if (grpc::Status bad = metrics_page_position(request->page_token(), request->job_ids_size(), at); !bad.ok()) {
      return bad;
    }
    const std::vector<std::string> names(request->names().begin(), request->names().end());
    std::size_t room = static_cast<std::size_t>(request->page_size() == 0 ? limits::kDefaultMetricPageSize
                                                                          : request->page_size());
    // The page ends at `room` points or before its encoded size passes kMaxReplyBytes (at least one point),
    // whichever comes first; the token says where it ended.
    std::size_t bytes = 0, points = 0;
    for (int i = at.job; i < request->job_ids_size(); ++i) {
      auto job = store_.find_job(request->job_ids(i));
      if (!job) return not_found("job '" + request->job_ids(i) + "'");
      const std::optional<Store::MetricsResume> from = i == at.job ? at.resume : std::nullopt;
      Store::MetricsPage page = store_.metrics_page(job->id(), names, request->after_step(),
                                                    std::numeric_limits<std::int64_t>::max(), from, room);
      v1::JobMetrics* out = response->add_jobs();
      out->set_job_id(job->id());
      std::size_t kept = 0;
      for (; kept < page.points.size(); ++kept) {
        v1::MetricPoint* point = out->add_points();
        to_proto(page.points[kept], point);
        const std::size_t size = point->ByteSizeLong() + 8;
        if (points > 0 && bytes + size > limits::kMaxReplyBytes) {
          out->mutable_points()->RemoveLast();
          break;
        }
        bytes += size;
        ++points;
      }
      if (kept < page.points.size()) {  // out of bytes inside this job
        response->set_next_page_token(
            metrics_page_token(i, kept > 0 ? std::optional(Store::MetricsResume{page.points[kept - 1].name,
                                                                                page.points[kept - 1].step})
                                           : from));
        if (kept == 0) response->mutable_jobs()->RemoveLast();
        break;
      }
      if (page.next) {  // out of points inside this job
        response->set_next_page_token(metrics_page_token(i, page.next));
        break;
      }
      room -= kept;
      if (room == 0 && i + 1 < request->job_ids_size()) {
        response->set_next_page_token(metrics_page_token(i + 1, std::nullopt));
        break;
      }
    }
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::ListWorkers(grpc::ServerContext*, const v1::ListWorkersRequest* request,
                                             v1::ListWorkersResponse* response) {
  return guarded(*request, [&] {
    std::int64_t after = -1;
    std::size_t size = 0;
    if (grpc::Status bad = page_arguments(request->page_size(), request->page_token(), size, after); !bad.ok()) {
      return bad;
    }
    bool more = false;
    more = add_within_reply_budget(store_.list_workers_page(options_.lease_timeout_ms, after, size, more),
                                   *response->mutable_workers()) ||
           more;
    if (more) response->set_next_page_token(response->workers(response->workers_size() - 1).id());
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetJobLog(grpc::ServerContext*, const v1::GetJobLogRequest* request,
                                           v1::GetJobLogResponse* response) {
  return guarded(*request, [&] {
    auto job = store_.find_job(request->job_id());
    if (!job) return not_found("job '" + request->job_id() + "'");
    // The end of the log, read from its end (server/job_files.h) and never more than a reply may carry:
    // a log is as long as its trainer made it. Valid UTF-8 only goes into the reply's string field.
    const std::size_t most = limits::kMaxReplyBytes;
    const std::size_t asked = request->tail_bytes() > 0 ? static_cast<std::size_t>(request->tail_bytes()) : most;
    const LogTail tail = read_log_tail(options_.shared_root, job->id(), std::min(asked, most));
    // A link or another kind of file at the log: the reason, never what it points at.
    if (!tail.refused.empty()) return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, tail.refused);
    if (!tail.exists) return grpc::Status(grpc::StatusCode::NOT_FOUND, "job " + job->id() + " has no log yet");
    response->set_text(tail.text);
    return grpc::Status::OK;
  });
}

grpc::Status CoordinatorService::GetFits(grpc::ServerContext*, const v1::GetFitsRequest* request,
                                         v1::GetFitsResponse* response) {
  return guarded(*request, [&] {
    if (request->page_size() < 0 || request->page_size() > limits::kMaxFitPageSize) {
      return invalid_argument("page_size: " + std::to_string(request->page_size()) + " is outside 0.." +
                              std::to_string(limits::kMaxFitPageSize));
    }
    int below = 0;
    if (!request->page_token().empty() && (!absl::SimpleAtoi(request->page_token(), &below) || below < 1)) {
      return invalid_argument("page_token: '" + utf8_head(request->page_token(), 64) +
                              "' is not a token from a previous page");
    }
    auto sweep = store_.find_sweep(request->sweep_id());
    if (!sweep) return not_found("sweep '" + request->sweep_id() + "'");
    const std::size_t versions = request->latest_only()     ? 1
                                 : request->page_size() == 0 ? limits::kDefaultFitPageSize
                                                             : static_cast<std::size_t>(request->page_size());
    Store::FitPage page = store_.fits_page(sweep->id(), below > 0 ? std::optional(below) : std::nullopt, versions);
    // Whole versions up to the byte budget (at least one): the next page starts below the last one kept.
    std::size_t bytes = 0;
    int kept = 0;  // the version of the last fit kept
    for (v1::Fit& fit : page.fits) {
      bytes += fit.ByteSizeLong() + 8;
      if (bytes > limits::kMaxReplyBytes && kept != 0 && fit.version() != kept) {  // a version after the first
        page.next_below = kept;
        break;
      }
      kept = fit.version();
      *response->add_fits() = std::move(fit);
    }
    if (!request->latest_only() && page.next_below > 0) {
      response->set_next_page_token(std::to_string(page.next_below));
    }
    return grpc::Status::OK;
  });
}

}  // namespace gammalab
