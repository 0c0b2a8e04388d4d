// The HTTP API's job routes (server/http_api.h lists them): one job, its metrics, history, log tail and
// checkpoints, and the user's two actions on it, cancel and retry.
#include <string>

#include <nlohmann/json.hpp>

#include "core/job_state.h"
#include "core/shared_root.h"
#include "http/http_router.h"
#include "proto/convert.h"
#include "proto/dashboard_json.h"
#include "server/http_api.h"
#include "server/http_query.h"
#include "server/http_replies.h"
#include "server/job_files.h"

namespace gammalab {

namespace {
using nlohmann::json;
// A job's history, log tail and checkpoint list are bounded whatever the job's past or its files.
constexpr std::int64_t kDefaultJobEvents = 200;
constexpr std::int64_t kMaxJobEvents = 1000;
constexpr std::int64_t kMaxLogTailBytes = 64 * 1024;
constexpr std::size_t kMaxCheckpointsListed = 100;
}  // namespace

void HttpApi::add_job_routes(HttpRouter& r) {
  using Args = HttpRouter::PathArgs;
  r.get("/api/jobs/{}", [this](const HttpRequest&, HttpResponse& res, const Args& args) {
    auto job = app_.job(args[0]);
    if (!job.ok()) return send_error(res, job.status());
    send_json(res, dashboard_job(to_proto(*job)).dump());
  });
  r.get("/api/jobs/{}/metrics", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    const auto q = http_query::series_query(req, options_.http_max_full_series_points);
    if (!q.ok()) return send_error(res, q.status());
    auto series = app_.job_series(args[0], *q);
    if (!series.ok()) return send_error(res, series.status());
    send_json(res, metric_columns(series->points).dump());
  });
  r.get("/api/jobs/{}/events", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    const auto limit = http_query::int_param(req, "limit", 1, kMaxJobEvents, kDefaultJobEvents);
    if (!limit.ok()) return send_error(res, limit.status());
    auto history = app_.job_events(args[0], static_cast<std::size_t>(*limit));
    if (!history.ok()) return send_error(res, history.status());
    json events = json::array();
    for (const JobEvent& e : history->events) {
      events.push_back({{"id", std::to_string(e.id)}, {"at_ms", e.at_ms}, {"kind", e.kind},
                        {"state", std::string(job_state_name(e.state))}, {"attempt", e.attempt},
                        {"worker_id", e.worker_id}, {"worker", e.worker_hostname}, {"detail", e.detail}});
    }
    send_json(res, json{{"events", std::move(events)}, {"earlier", history->earlier}}.dump());
  });
  r.get("/api/jobs/{}/log", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    const auto tail_bytes = http_query::int_param(req, "tail_bytes", 1, kMaxLogTailBytes, kMaxLogTailBytes);
    if (!tail_bytes.ok()) return send_error(res, tail_bytes.status());
    auto log = app_.log_tail(args[0], static_cast<std::size_t>(*tail_bytes));
    if (!log.ok()) return send_error(res, log.status());
    const LogTail& tail = log->tail;
    // A link or another kind of file at the log is no log: the answer says why, never what it points at.
    json answer{{"exists", tail.exists}, {"size", tail.size}, {"truncated", tail.truncated}, {"text", tail.text}};
    if (!tail.refused.empty()) answer["refused"] = tail.refused;
    send_json(res, answer.dump());
  });
  r.get("/api/jobs/{}/checkpoints", [this](const HttpRequest&, HttpResponse& res, const Args& args) {
    auto checkpoints = app_.checkpoints(args[0], kMaxCheckpointsListed);
    if (!checkpoints.ok()) return send_error(res, checkpoints.status());
    const CheckpointList& list = checkpoints->list;
    json files = json::array();
    for (const CheckpointFile& f : list.files) {
      files.push_back({{"name", f.name}, {"step", f.step}, {"bytes", f.bytes}, {"modified_ms", f.modified_ms}});
    }
    json answer{{"dir", shared_root::job_ckpt_dir(checkpoints->job_id).string()}, {"checkpoints", std::move(files)},
                {"truncated", list.truncated}};
    if (!list.refused.empty()) answer["refused"] = list.refused;
    send_json(res, answer.dump());
  });
  // The user's two actions on a job, the same operations as the Coordinator service's CancelSweep (with this
  // one job) and RetryJob. 409 when the job's state does not allow it.
  r.post("/api/jobs/{}/cancel", [this](const HttpRequest&, HttpResponse& res, const Args& args) {
    auto job = app_.cancel_job(args[0]);
    if (!job.ok()) return send_error(res, job.status());
    send_json(res, dashboard_job(to_proto(*job)).dump());
  });
  r.post("/api/jobs/{}/retry", [this](const HttpRequest&, HttpResponse& res, const Args& args) {
    auto job = app_.retry_job(args[0]);
    if (!job.ok()) return send_error(res, job.status());
    send_json(res, dashboard_job(to_proto(*job)).dump());
  });
}

}  // namespace gammalab
