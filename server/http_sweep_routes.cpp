// The HTTP API's sweep routes (server/http_api.h lists them): the sweeps, one sweep's jobs, runs, metrics and
// fits, a sweep file's submission and a sweep's cancel. Each reads its request (server/http_query.h), calls one
// operation of the application layer and writes its JSON.
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "core/limits.h"
#include "core/utf8_text.h"
#include "http/http_router.h"
#include "proto/convert.h"
#include "proto/dashboard_json.h"
#include "proto/proto_json.h"
#include "server/http_api.h"
#include "server/http_query.h"
#include "server/http_replies.h"
#include "server/pending_reason.h"

namespace gammalab {

namespace {
using nlohmann::json;
// A submitted file's name, as SubmitSweepRequest.file_name is bounded (server/request_limits.cpp).
constexpr std::size_t kMaxFileNameBytes = 1024;
}  // namespace

void HttpApi::add_sweep_routes(HttpRouter& r) {
  using Args = HttpRouter::PathArgs;
  r.get("/api/sweeps", [this](const HttpRequest& req, HttpResponse& res, const Args&) {
    auto sweeps = http_query::list_rows<SweepRecord>(req, res, [this](const auto& p) { return app_.list_sweeps(p); });
    if (!sweeps.ok()) return send_error(res, sweeps.status());
    send_json(res, proto_json_array(to_proto(*sweeps)));
  });
  // Submits a sweep file, its YAML the body (as `gammalab submit`: the Coordinator service's SubmitSweep). 201 with
  // the sweep and its job counts; 422 with the file's problems, each with its line and column, and nothing stored.
  // ?file_name= names the file in those problems, ?rerun=1 trains again what a finished config would reuse.
  r.post("/api/sweeps", [this](const HttpRequest& req, HttpResponse& res, const Args&) {
    const std::string file_name = req.has_param("file_name") ? req.param("file_name") : "sweep.yaml";
    if (file_name.empty() || file_name.size() > kMaxFileNameBytes || utf8_first_invalid(file_name).has_value()) {
      return send_error(res, 400, "file_name: expected 1 to " + std::to_string(kMaxFileNameBytes) +
                                      " bytes of UTF-8, got " + std::to_string(file_name.size()) + " bytes");
    }
    const std::string rerun = req.param("rerun");
    if (!rerun.empty() && rerun != "0" && rerun != "1") {
      return send_error(res, 400, "rerun: expected 0 or 1, got '" + utf8_head(rerun, 32) + "'");
    }
    coordinator::Submitted submitted = app_.submit_sweep(req.body, file_name, rerun == "1");
    // The gRPC reply's message as JSON, so that both doors bound and word the problems alike.
    json answer = json::parse(proto_to_json(
        submit_reply(submitted.sweep, submitted.jobs_created, submitted.jobs_reused, submitted.problems)));
    if (!submitted.sweep) {
      answer["error"] = std::to_string(submitted.problems.size()) + " problem(s) in " + file_name;
      answer.erase("sweep");
    }
    res.status = submitted.sweep ? 201 : 422;
    send_json(res, answer.dump());
  });
  // Cancels every pending and running job of a sweep (a sweep in its tune stage gets no main stage).
  r.post("/api/sweeps/{}/cancel", [this](const HttpRequest&, HttpResponse& res, const Args& args) {
    auto cancelled = app_.cancel_sweep(args[0], {});
    if (!cancelled.ok()) return send_error(res, cancelled.status());
    send_json(res, json{{"cancelled", *cancelled}}.dump());
  });
  r.get("/api/sweeps/{}", [this](const HttpRequest&, HttpResponse& res, const Args& args) {
    auto sweep = app_.sweep(args[0]);
    if (!sweep.ok()) return send_error(res, sweep.status());
    send_json(res, proto_to_json(to_proto(*sweep)));
  });
  // With changed_after=N, only the jobs written after change number N. Either way X-Change-Seq says what to
  // ask for next and X-Pending-Basis what the pending reasons were worked out from (coordinator::JobChanges):
  // a page that keeps the jobs asks for the changes, and for the whole list again when the basis moved.
  r.get("/api/sweeps/{}/jobs", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    coordinator::JobChanges changes;
    if (req.has_param("changed_after")) {
      const absl::StatusOr<std::int64_t> after =
          http_query::int_param(req, "changed_after", 0, std::numeric_limits<std::int64_t>::max(), 0);
      if (!after.ok()) return send_error(res, after.status());
      absl::StatusOr<coordinator::JobChanges> read = app_.jobs_changed(args[0], *after);
      if (!read.ok()) return send_error(res, read.status());
      changes = std::move(*read);
    } else {
      changes = app_.whole_list_start();  // before the list: a change during it comes again in the next changes
      auto jobs = http_query::list_rows<JobRecord>(
          req, res, [&](const auto& p) { return app_.list_jobs(args[0], {}, p, &changes.live_worker_slots); });
      if (!jobs.ok()) return send_error(res, jobs.status());
      changes.jobs = std::move(*jobs);
    }
    std::string out = "[";
    for (const JobRecord& job : changes.jobs) out.append(out.size() > 1 ? "," : "").append(dashboard_job_text(to_proto(job)));
    out += "]";
    res.set_header("X-Change-Seq", std::to_string(changes.seq));
    res.set_header("X-Pending-Basis", pending_basis(changes.live_worker_slots));
    send_json(res, std::move(out));
  });
  // One row per job (proto/dashboard_json.h), from the ends of its loss curves.
  r.get("/api/sweeps/{}/runs", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    auto runs = http_query::list_rows<coordinator::Run>(req, res,
                                            [&](const auto& p) { return app_.list_runs(args[0], p); });
    if (!runs.ok()) return send_error(res, runs.status());
    json out = json::array();
    for (const coordinator::Run& run : *runs) {
      out.push_back(dashboard_run(to_proto(run.job), run.losses, run_sizes_.of(run.job.config_hash, run.job.config_json)));
    }
    send_json(res, out.dump());
  });
  r.get("/api/sweeps/{}/metrics", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    const auto q = http_query::series_query(req, options_.http_max_full_series_points);
    if (!q.ok()) return send_error(res, q.status());
    auto series = app_.sweep_series(args[0], *q);
    if (!series.ok()) return send_error(res, series.status());
    json out = json::object();
    for (const coordinator::JobSeries& s : *series) out[s.job_id] = metric_columns(s.points);
    send_json(res, out.dump());
  });
  // The latest scaling-law fit version of a sweep, {"version": V, "fits": [Fit, ...]} with one Fit message per
  // law (report_json holds the report; law n comes with law c when tokens are tied to parameters), or with
  // ?all=1 the history a page at a time: {"fits": [...], "next_before_version": V} of at most `limit` versions
  // (1..100, default 10) below ?before_version (default: from the newest), newest first; next_before_version
  // only while older versions remain. While the sweep has no fit: {"version": 0, "fits": []} (or no versions).
  r.get("/api/sweeps/{}/fits", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    const bool all = req.param("all") == "1";
    std::int64_t limit = 1, before = 0;
    if (all) {
      const auto asked = http_query::int_param(req, "limit", 1, limits::kMaxFitPageSize, limits::kDefaultFitPageSize);
      if (!asked.ok()) return send_error(res, asked.status());
      const auto below = http_query::int_param(req, "before_version", 1, std::numeric_limits<int>::max(), 0);
      if (!below.ok()) return send_error(res, below.status());
      limit = *asked;
      before = *below;
    }
    auto page = app_.fits(args[0], !all, {limit, before > 0 ? std::to_string(before) : ""});
    if (!page.ok()) return send_error(res, page.status());
    // A sweep without a fit yet is no missing resource: its fits are none (a 404 is for no such sweep).
    if (!all && page->items.empty()) return send_json(res, json{{"version", 0}, {"fits", json::array()}}.dump());
    if (!all) return send_json(res, dashboard_latest_fits(to_proto(page->items)).dump());
    const std::string next = page->next_token.empty() ? "" : ",\"next_before_version\":" + page->next_token;
    send_json(res, "{\"fits\":" + proto_json_array(to_proto(page->items)) + next + "}");
  });
}

}  // namespace gammalab
