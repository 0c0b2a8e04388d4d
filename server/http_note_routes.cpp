// The HTTP API's routes for what users write beside their runs (server/http_api.h lists them): notes and tags,
// their search, alerts, and the dashboard's saved views.
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "core/annotation.h"
#include "core/saved_view.h"
#include "core/utf8_text.h"
#include "http/http_router.h"
#include "proto/convert.h"
#include "proto/proto_json.h"
#include "server/http_api.h"
#include "server/http_query.h"
#include "server/http_replies.h"
#include "server/request_limits.h"

namespace gammalab {

namespace {
using nlohmann::json;

// A saved view as the API answers it; `mine`: the caller saved it (and may delete it).
json view_json(const SavedView& v, std::int64_t caller) {
  return {{"id", v.id}, {"name", v.name}, {"sweep_id", v.sweep_id}, {"settings", v.settings},
          {"updated_ms", v.updated_ms}, {"mine", v.owner == caller}};
}

// POST /api/views's body: {"name", "sweep_id", "settings"}, each a string (absent: empty), nothing else.
struct ViewBody {
  std::string name, sweep_id, settings;
};
absl::StatusOr<ViewBody> view_body(const std::string& text) {
  const json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return absl::InvalidArgumentError("body: not JSON");
  if (!body.is_object()) return absl::InvalidArgumentError("body: a JSON object {\"name\", \"sweep_id\", \"settings\"}");
  for (const auto& [key, value] : body.items()) {
    if (key != "name" && key != "sweep_id" && key != "settings") {
      return absl::InvalidArgumentError("body: unknown field '" + utf8_head(key, 64) + "' (name, sweep_id, settings)");
    }
    if (!value.is_string()) return absl::InvalidArgumentError(key + ": expected a string");
  }
  return ViewBody{body.value("name", ""), body.value("sweep_id", ""), body.value("settings", "")};
}

// A proto message from a JSON body, refused as a 400 naming what is wrong with it.
absl::Status parse_proto_json(const std::string& body, google::protobuf::Message& out) {
  try {
    proto_from_json(body, out);
  } catch (const std::invalid_argument& e) {  // proto/proto_json.h's one way to refuse
    return absl::InvalidArgumentError(e.what());
  }
  return absl::OkStatus();
}
}  // namespace

void HttpApi::add_note_routes(HttpRouter& r) {
  using Args = HttpRouter::PathArgs;
  // Notes and tags (core/annotation.h): the sweep's own and its runs'. A change is the Coordinator service's
  // AnnotateRequest as JSON ({"job_id": "12", "note": "...", "add_tags": ["a"], "remove_tags": []}, every field
  // optional, the sweep from the path), bounded as the gRPC door bounds it; the answer is the annotation after it.
  r.get("/api/sweeps/{}/annotations", [this](const HttpRequest&, HttpResponse& res, const Args& args) {
    auto annotations = app_.annotations(args[0]);
    if (!annotations.ok()) return send_error(res, annotations.status());
    send_json(res, proto_to_json(annotations_reply(*annotations)));
  });
  r.post("/api/sweeps/{}/annotations", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    v1::AnnotateRequest request;
    if (const absl::Status parsed = parse_proto_json(req.body, request); !parsed.ok()) return send_error(res, parsed);
    if (!request.sweep_id().empty()) return send_error(res, 400, "sweep_id: the sweep is the path's, not the body's");
    if (const grpc::Status bounded = check_request_limits(request); !bounded.ok()) {
      return send_error(res, bounded.error_code() == grpc::StatusCode::NOT_FOUND ? 404 : 400, bounded.error_message());
    }
    auto annotation = app_.annotate(args[0], request.job_id(), from_proto(request));
    if (!annotation.ok()) return send_error(res, annotation.status());
    send_json(res, proto_to_json(to_proto(*annotation)));
  });
  // ?q= the words (tag:NAME for a tag), ?limit= at most 200 hits: the Coordinator service's Search.
  r.get("/api/search", [this](const HttpRequest& req, HttpResponse& res, const Args&) {
    const auto limit =
        http_query::int_param(req, "limit", 1, static_cast<std::int64_t>(annotation_limits::kSearchHits), 0);
    if (!limit.ok()) return send_error(res, limit.status());
    auto answer = app_.search(req.param("q"), static_cast<std::size_t>(*limit));
    if (!answer.ok()) return send_error(res, answer.status());
    send_json(res, proto_to_json(search_reply(answer->hits, answer->truncated)));
  });
  // Alerts (core/alert.h), newest first: every sweep's, or one sweep's; ?after= an alert id (only newer ones),
  // ?limit= at most 200. The Coordinator service's ListAlerts.
  const auto alerts = [this](const HttpRequest& req, HttpResponse& res, const std::string& sweep_id) {
    const auto after = http_query::int_param(req, "after", 0, std::numeric_limits<std::int64_t>::max(), 0);
    if (!after.ok()) return send_error(res, after.status());
    const auto limit =
        http_query::int_param(req, "limit", 1, static_cast<std::int64_t>(coordinator::Coordinator::kAlertsPerAnswer), 0);
    if (!limit.ok()) return send_error(res, limit.status());
    auto answer = app_.alerts(sweep_id, *after, *limit);
    if (!answer.ok()) return send_error(res, answer.status());
    send_json(res, proto_to_json(alerts_reply(answer->alerts, answer->truncated)));
  };
  r.get("/api/alerts", [alerts](const HttpRequest& req, HttpResponse& res, const Args&) { alerts(req, res, ""); });
  r.get("/api/sweeps/{}/alerts",
        [alerts](const HttpRequest& req, HttpResponse& res, const Args& args) { alerts(req, res, args[0]); });
  // The dashboard's saved views (core/saved_view.h): the caller's own, listed; one saved (a name the caller has
  // already is replaced) from {"name", "sweep_id", "settings"}; any one read by id (a view's link opens for
  // anyone let in); deleted by its owner only (403 else).
  r.get("/api/views", [this](const HttpRequest& req, HttpResponse& res, const Args&) {
    const std::int64_t owner = auth_.caller_token_id(req).value_or(0);
    json out = json::array();
    for (const SavedView& v : app_.views(owner)) out.push_back(view_json(v, owner));
    send_json(res, out.dump());
  });
  r.post("/api/views", [this](const HttpRequest& req, HttpResponse& res, const Args&) {
    const absl::StatusOr<ViewBody> body = view_body(req.body);
    if (!body.ok()) return send_error(res, body.status());
    const std::int64_t owner = auth_.caller_token_id(req).value_or(0);
    auto saved = app_.save_view(owner, body->name, body->sweep_id, body->settings);
    if (!saved.ok()) return send_error(res, saved.status());
    send_json(res, view_json(*saved, owner).dump());
  });
  r.get("/api/views/{}", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    auto found = app_.view(args[0]);
    if (!found.ok()) return send_error(res, found.status());
    send_json(res, view_json(*found, auth_.caller_token_id(req).value_or(0)).dump());
  });
  r.del("/api/views/{}", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    const absl::Status deleted = app_.delete_view(auth_.caller_token_id(req).value_or(0), args[0]);
    if (!deleted.ok()) return send_error(res, deleted);
    send_json(res, json{{"deleted", args[0]}}.dump());
  });
}

}  // namespace gammalab
