// The dashboard's HTTP API and static files (routes in server/http_api.h). Each API route reads its request,
// calls one operation of the application layer (server/coordinator/coordinator.h) and writes its JSON.
#include "server/http_api.h"

#include <absl/strings/str_split.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <iterator>
#include <chrono>
#include <filesystem>
#include <limits>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "core/host_port.h"
#include "core/job_state.h"
#include "core/limits.h"
#include "core/metric_downsample.h"
#include "core/metric_names.h"
#include "core/shared_root.h"
#include "core/utf8_text.h"
#include "http/http_router.h"
#include "http/http_server.h"
#include "proto/convert.h"
#include "proto/dashboard_json.h"
#include "proto/proto_json.h"
#include "server/dashboard_files.h"
#include "server/pending_reason.h"
#include "server/job_files.h"
#include "server/loopback.h"
#include "server/prometheus_metrics.h"
#include "server/request_limits.h"
#include "server/tls_files.h"

namespace gammalab {

namespace {

using nlohmann::json;

// The event threads that read requests and run the handlers (http/http_server.h): slow clients and open
// event streams hold none of them, a long handler (a sweep's metrics) holds one while it runs. Their reads
// share the store's read connections (server/store/read_pool.h), one per core at once.
constexpr unsigned kHttpThreads = 8;
// The workers' calls (leases, reports, heartbeats) come before the dashboard's reads: with every core busy
// drawing sweeps' tables, a lease still waits milliseconds, not the reads' turn, and no reader with a valid
// token, however many requests it sends, can starve the workers of CPU. Niceness 10 weighs a thread about a
// tenth of a normal one (Linux CFS).
constexpr int kHttpThreadNiceness = 10;
// A container's or a load balancer's health check: 200 {"ok": true} once the store answered a read, 503 if it
// failed. No token (the checker has none) and nothing in it but that.
constexpr std::string_view kHealthPath = "/healthz";
// Event streams hold no thread (they wait suspended), only a connection and a few bytes: the bounds keep one
// client address, or all of them, from holding every connection slot.
constexpr std::size_t kMaxEventStreams = 256;
constexpr std::size_t kMaxEventStreamsPerClient = 8;
// Every open stream gets a ": ping" comment this often, so that proxies keep it open and a client that went
// away is noticed at the write.
constexpr auto kPingInterval = std::chrono::seconds(15);
// How often revocations are read: a revoked token's sessions and event streams end within about this long.
constexpr auto kRevocationCheckInterval = std::chrono::seconds(1);
// A burst of metric writes is one "change" event: the notifier waits this long after the first change.
constexpr auto kCoalesceChanges = std::chrono::milliseconds(300);
// A connection that sends nothing for this long is closed: a request sent byte by byte, a client that never
// ends its headers, an idle keep-alive. Nothing the dashboard sends is larger than the body limit; its
// headers fit in the header limit with room to spare.
constexpr unsigned kIdleTimeoutSeconds = 5;
// ... and one that sends a byte every few seconds is cut off when its request is not whole after this long.
constexpr unsigned kRequestDeadlineSeconds = 10;
constexpr std::size_t kMaxRequestBodyBytes = 64 * 1024;
constexpr std::size_t kMaxRequestHeaderBytes = 32 * 1024;
// Connections in all and per client address: one address (an attacker's) can hold a quarter of the slots,
// never all; a browser opens about six, a NAT or a reverse proxy shares one address among many.
constexpr unsigned kMaxConnections = 8192;
constexpr unsigned kMaxConnectionsPerClient = 2048;
// A job's history, log tail and checkpoint list are bounded whatever the job's past or its files.
constexpr std::int64_t kDefaultJobEvents = 200;
constexpr std::int64_t kMaxJobEvents = 1000;
constexpr std::int64_t kMaxLogTailBytes = 64 * 1024;
constexpr std::size_t kMaxCheckpointsListed = 100;

// On every response. The dashboard is this origin's own modules and stylesheets only: no inline script or
// style, no other origin to load from or send to, never framed (so no clickjacking of its buttons), and
// nothing sniffed into a type it was not served as.
HttpFields security_headers() {
  return {
      {"Content-Security-Policy",
       "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
       "font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"},
      {"X-Content-Type-Options", "nosniff"},
      {"X-Frame-Options", "DENY"},
      {"Referrer-Policy", "no-referrer"},
      {"Cross-Origin-Resource-Policy", "same-origin"},
  };
}

// A request that may change something (any method but GET and HEAD) from a page of another origin is refused:
// a browser sends Origin with such requests, and a page elsewhere must not drive this dashboard's buttons.
bool cross_origin_write(const HttpRequest& req) {
  if (req.method == "GET" || req.method == "HEAD") return false;
  if (!req.has_header("Origin")) return false;  // not from a browser page (curl, the CLI)
  const std::string origin = req.header("Origin");
  const std::string host = req.header("Host");
  return host.empty() || (origin != "http://" + host && origin != "https://" + host);
}

// A submitted file's name, as SubmitSweepRequest.file_name is bounded (server/request_limits.cpp).
constexpr std::size_t kMaxFileNameBytes = 1024;

// (By value: a sweep's metrics answer is megabytes, moved into the response rather than copied.)
void send_json(HttpResponse& res, std::string body) {
  res.set_header("Cache-Control", "no-store");
  res.set_content(std::move(body), "application/json");
}

void send_error(HttpResponse& res, int status, std::string_view message) { res.set_error(status, message); }
void send_error(HttpResponse& res, const absl::Status& refusal) {
  send_error(res, coordinator::http_status(refusal), std::string(refusal.message()));
}

// A saved view as the API answers it; `mine`: the caller saved it (and may delete it).
json view_json(const SavedView& v, std::int64_t caller) {
  return {{"id", v.id}, {"name", v.name}, {"sweep_id", v.sweep_id}, {"settings", v.settings},
          {"updated_ms", v.updated_ms}, {"mine", v.owner == caller}};
}

// An integer query parameter in [lo, hi], or `fallback` when absent. Throws std::invalid_argument naming the
// parameter, the limits and the value.
std::int64_t int_param(const HttpRequest& req, const char* name, std::int64_t lo, std::int64_t hi,
                       std::int64_t fallback) {
  if (!req.has_param(name)) return fallback;
  const std::string text = req.param(name);
  std::int64_t value = 0;
  // Digits with an optional '-', nothing else: no space, no '+', no exponent, nothing after.
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
    const std::string range = hi == std::numeric_limits<std::int64_t>::max()
                                  ? ">= " + std::to_string(lo)
                                  : "from " + std::to_string(lo) + " to " + std::to_string(hi);
    throw std::invalid_argument(std::string(name) + ": expected an integer " + range + ", got '" +
                                utf8_head(text, 64) + "'");
  }
  return value;
}

// Which points of each series a metrics request wants: steps after `after_step` (the live append) and within
// [from_step, to_step] (a zoomed chart), at most `max_points` per series (absent: all of them, at most
// `max_full_points` in all), downsampled by core/metric_downsample.h. Throws std::invalid_argument with a message
// for the client.
coordinator::Coordinator::SeriesQuery series_query(const HttpRequest& req, std::size_t max_full_points) {
  constexpr auto kNoLimit = std::numeric_limits<std::int64_t>::max();
  coordinator::Coordinator::SeriesQuery q;
  q.range.after_step = int_param(req, "after_step", -1, kNoLimit, -1);
  const std::int64_t from = int_param(req, "from_step", 0, kNoLimit, 0);
  q.range.after_step = std::max(q.range.after_step, from - 1);
  q.range.to_step = int_param(req, "to_step", 0, kNoLimit, kNoLimit);
  if (req.has_param("from_step") && q.range.to_step < from) {
    throw std::invalid_argument("to_step: expected at least from_step (" + std::to_string(from) + "), got " +
                                std::to_string(q.range.to_step));
  }
  // Four points per bucket (first, last, lowest, highest): max_points / 4 buckets.
  const std::int64_t max_points =
      int_param(req, "max_points", 4 * kMinDownsampleBuckets, 4 * kMaxDownsampleBuckets, 0);
  q.buckets = static_cast<std::size_t>(max_points / 4);
  q.max_points = max_full_points;
  q.names = absl::StrSplit(req.param("names"), ',', absl::SkipEmpty());  // no names: every metric
  return q;
}

// A list route's page: ?page_size and ?page_token, as the gRPC lists take them (server/coordinator/page.h);
// without either, the whole list, which the dashboard's tables show (read a page at a time all the same).
struct ListRequest {
  bool paged = false;
  coordinator::PageRequest page;
};

ListRequest list_request(const HttpRequest& req) {
  ListRequest out;
  out.paged = req.has_param("page_size") || req.has_param("page_token");
  out.page.size = int_param(req, "page_size", std::numeric_limits<std::int64_t>::min(),
                            std::numeric_limits<std::int64_t>::max(), 0);
  out.page.token = req.param("page_token");
  return out;
}

// The rows of a list request: one page, its next token in the X-Next-Page-Token header, or every page.
template <typename Row, typename Read>
absl::StatusOr<std::vector<Row>> list_rows(const HttpRequest& req, HttpResponse& res, Read read) {
  ListRequest request;
  try {
    request = list_request(req);
  } catch (const std::invalid_argument& e) {
    return absl::InvalidArgumentError(e.what());
  }
  coordinator::PageRequest page = request.page;
  std::vector<Row> rows;
  do {
    absl::StatusOr<coordinator::Page<Row>> one = read(page);
    if (!one.ok()) return one.status();
    std::move(one->items.begin(), one->items.end(), std::back_inserter(rows));
    page.token = std::move(one->next_token);
    if (request.paged) {
      if (!page.token.empty()) res.set_header("X-Next-Page-Token", page.token);
      break;
    }
  } while (!page.token.empty());
  return rows;
}

// A dashboard file's content type, by its extension (server/dashboard_files.h allows no others).
std::string_view content_type(std::string_view path) {
  if (path.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (path.ends_with(".css")) return "text/css; charset=utf-8";
  return "text/html; charset=utf-8";
}

// Where a dashboard path's file is: "/" is index.html, /vendor/uplot/NAME the uPlot package's dist/NAME, /NAME
// web/NAME. `path` has passed is_dashboard_file, so NAME is one plain file name.
std::filesystem::path dashboard_file(const std::filesystem::path& web_root, std::string_view path) {
  constexpr std::string_view kUPlot = "/vendor/uplot/";
  if (path == "/") return web_root / "index.html";
  if (path.starts_with(kUPlot)) return web_root / "node_modules" / "uplot" / "dist" / path.substr(kUPlot.size());
  return web_root / path.substr(1);
}

void send_file(const std::filesystem::path& web_root, const HttpRequest& req, HttpResponse& res) {
  const std::filesystem::path file = dashboard_file(web_root, req.path);
  const int fd = web_root.empty() ? -1 : ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) ::close(fd);
    res.status = 404;
    return res.set_content("not found\n", "text/plain");
  }
  res.set_header("Cache-Control", "no-cache");  // a new build's files are picked up at the next load
  res.set_file(fd, static_cast<std::uint64_t>(st.st_size), content_type(req.path));
}

// HTTPS with --tls-cert/--tls-key (checked by read_tls_files first, so a bad file is a clear error), else HTTP.
HttpServerOptions server_options(const ServerOptions& options) {
  const auto address = parse_host_port(options.http_address, "--http", /*min_port=*/0);  // 0: any free port
  if (const auto* reason = std::get_if<std::string>(&address)) throw std::invalid_argument(*reason);
  HttpServerOptions o;
  o.host = std::get<HostPort>(address).host;
  o.port = std::get<HostPort>(address).port;
  if (const std::optional<TlsFiles> tls = read_tls_files(options)) {
    o.tls_cert_pem = tls->cert_pem;
    o.tls_key_pem = tls->key_pem;
  }
  o.threads = kHttpThreads;
  o.thread_niceness = kHttpThreadNiceness;
  o.idle_timeout_s = kIdleTimeoutSeconds;
  o.request_deadline_s = kRequestDeadlineSeconds;
  o.max_connections = kMaxConnections;
  o.max_connections_per_client = kMaxConnectionsPerClient;
  o.max_header_bytes = kMaxRequestHeaderBytes;
  o.max_body_bytes = kMaxRequestBodyBytes;
  o.default_headers = security_headers();
  o.flag = "--http";
  return o;
}

}  // namespace

HttpApi::HttpApi(Store& store, const ServerOptions& options, Tokens* tokens)
    : store_(store),
      options_(options),
      app_(store, options),
      auth_(tokens, !options.tls_cert.empty()),
      event_streams_(kMaxEventStreams, kMaxEventStreamsPerClient),
      router_(std::make_unique<HttpRouter>()) {
  add_routes();
  published_version_ = store_.version();
  server_ = std::make_unique<HttpServer>(server_options(options_),
                                         [this](const HttpRequest& req, HttpResponse& res) { handle(req, res); });
  notifier_ = std::thread([this] { notify_streams(); });
}

HttpApi::~HttpApi() {
  stopping_ = true;
  if (notifier_.joinable()) notifier_.join();
  server_.reset();  // ends the open streams before event_streams_ and router_ go
}

int HttpApi::port() const { return server_->port(); }

std::size_t HttpApi::open_event_streams() const { return server_->open_streams(); }

// Publishes the store's version to the streams (their sources read published_version_, never the store, as
// they run under the HTTP server's lock) and wakes them: after a change, once the burst is over, and every
// kPingInterval for the ping.
void HttpApi::notify_streams() {
  std::uint64_t seen = published_version_;
  auto next_ping = std::chrono::steady_clock::now() + kPingInterval;
  auto next_revocation_check = std::chrono::steady_clock::now();
  while (!stopping_) {
    // A revoked token's sessions end, and its open streams end at the wake that follows.
    if (std::chrono::steady_clock::now() >= next_revocation_check) {
      next_revocation_check += kRevocationCheckInterval;
      if (auth_.refresh_revocations()) server_->wake_streams();
    }
    if (store_.wait_for_change(seen, std::chrono::milliseconds(250)) != seen) {
      std::this_thread::sleep_for(kCoalesceChanges);
      seen = store_.version();
      published_version_ = seen;
      server_->wake_streams();
    }
    if (std::chrono::steady_clock::now() >= next_ping) {
      next_ping += kPingInterval;
      ++ping_round_;
      server_->wake_streams();
    }
  }
}

// The one entry of every request: cross-origin writes refused, the static-file filter, the auth check, then
// the routes.
void HttpApi::handle(const HttpRequest& req, HttpResponse& res) {
  if (!auth_.enabled() && !is_loopback_host_header(req.header("Host"))) {
    return send_error(res, 403,
                      "Host " + utf8_head(req.header("Host"), 200) +
                          " refused: without tokens (--insecure-no-auth) this server answers only requests "
                          "addressed to localhost or a loopback address");
  }
  if (cross_origin_write(req)) {
    return send_error(res, 403,
                      "cross-origin request refused: Origin " + utf8_head(req.header("Origin"), 200) +
                          " is not this dashboard's");
  }
  const bool api = req.path.starts_with("/api/");
  const bool scrape = req.path == kMetricsPath;
  const bool health = req.path == kHealthPath;  // no token: it tells nothing
  if (!api && !scrape && !health) {
    if ((req.method != "GET" && req.method != "HEAD") || !is_dashboard_file(req.path)) {
      res.status = 404;
      return res.set_content("not found\n", "text/plain");
    }
    return send_file(options_.web_root, req, res);
  }
  // The one auth check of the HTTP API (server/http_auth.h); opening or closing a session checks its own.
  if (scrape || (api && !(req.path == "/api/session" && req.method != "GET"))) {
    std::string reason;
    if (const int status = auth_.check(req, reason, scrape); status != 0) return send_error(res, status, reason);
  }
  switch (router_->dispatch(req, res)) {
    case HttpRouter::Outcome::kHandled:
      return;
    case HttpRouter::Outcome::kWrongMethod:
      return send_error(res, 405, "method " + utf8_head(req.method, 16) + " not allowed on " + utf8_head(req.path, 200));
    case HttpRouter::Outcome::kNoRoute:
      return send_error(res, 404, "no such route");
  }
}

void HttpApi::add_routes() {
  using Args = HttpRouter::PathArgs;
  HttpRouter& r = *router_;
  r.post("/api/session", [this](const HttpRequest& req, HttpResponse& res, const Args&) { auth_.open_session(req, res); });
  r.del("/api/session", [this](const HttpRequest& req, HttpResponse& res, const Args&) { auth_.close_session(req, res); });
  r.get("/api/session", [this](const HttpRequest&, HttpResponse& res, const Args&) {
    send_json(res, json{{"auth", auth_.enabled()}}.dump());  // only reached past the auth check
  });
  r.get("/api/sweeps", [this](const HttpRequest& req, HttpResponse& res, const Args&) {
    auto sweeps = list_rows<SweepRecord>(req, res, [this](const auto& p) { return app_.list_sweeps(p); });
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
    try {
      proto_from_json(req.body, request);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
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
    std::int64_t limit = 0;
    try {
      limit = int_param(req, "limit", 1, static_cast<std::int64_t>(annotation_limits::kSearchHits), 0);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto answer = app_.search(req.param("q"), static_cast<std::size_t>(limit));
    if (!answer.ok()) return send_error(res, answer.status());
    send_json(res, proto_to_json(search_reply(answer->hits, answer->truncated)));
  });
  // Alerts (core/alert.h), newest first: every sweep's, or one sweep's; ?after= an alert id (only newer ones),
  // ?limit= at most 200. The Coordinator service's ListAlerts.
  const auto alerts = [this](const HttpRequest& req, HttpResponse& res, const std::string& sweep_id) {
    std::int64_t after = 0, limit = 0;
    try {
      after = int_param(req, "after", 0, std::numeric_limits<std::int64_t>::max(), 0);
      limit = int_param(req, "limit", 1, static_cast<std::int64_t>(coordinator::Coordinator::kAlertsPerAnswer), 0);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto answer = app_.alerts(sweep_id, after, limit);
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
    std::string name, sweep, settings;
    try {
      const json body = json::parse(req.body);
      if (!body.is_object()) throw std::invalid_argument("body: a JSON object {\"name\", \"sweep_id\", \"settings\"}");
      for (const auto& [key, value] : body.items()) {
        if (key != "name" && key != "sweep_id" && key != "settings") {
          throw std::invalid_argument("body: unknown field '" + utf8_head(key, 64) + "' (name, sweep_id, settings)");
        }
        if (!value.is_string()) throw std::invalid_argument(key + ": expected a string");
      }
      name = body.value("name", "");
      sweep = body.value("sweep_id", "");
      settings = body.value("settings", "");
    } catch (const json::exception&) {
      return send_error(res, 400, "body: not JSON");
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    const std::int64_t owner = auth_.caller_token_id(req).value_or(0);
    auto saved = app_.save_view(owner, name, sweep, settings);
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
      std::int64_t after = 0;
      try {
        after = int_param(req, "changed_after", 0, std::numeric_limits<std::int64_t>::max(), 0);
      } catch (const std::invalid_argument& e) {
        return send_error(res, 400, e.what());
      }
      absl::StatusOr<coordinator::JobChanges> read = app_.jobs_changed(args[0], after);
      if (!read.ok()) return send_error(res, read.status());
      changes = std::move(*read);
    } else {
      changes = app_.whole_list_start();  // before the list: a change during it comes again in the next changes
      auto jobs = list_rows<JobRecord>(
          req, res, [&](const auto& p) { return app_.list_jobs(args[0], {}, p, &changes.live_worker_slots); });
      if (!jobs.ok()) return send_error(res, jobs.status());
      changes.jobs = std::move(*jobs);
    }
    auto out = nlohmann::ordered_json::array();
    for (const JobRecord& job : changes.jobs) out.push_back(dashboard_job(to_proto(job)));
    res.set_header("X-Change-Seq", std::to_string(changes.seq));
    res.set_header("X-Pending-Basis", pending_basis(changes.live_worker_slots));
    send_json(res, out.dump());
  });
  // One row per job (proto/dashboard_json.h), from the ends of its loss curves.
  r.get("/api/sweeps/{}/runs", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    auto runs = list_rows<coordinator::Run>(req, res,
                                            [&](const auto& p) { return app_.list_runs(args[0], p); });
    if (!runs.ok()) return send_error(res, runs.status());
    json out = json::array();
    for (const coordinator::Run& run : *runs) {
      out.push_back(dashboard_run(to_proto(run.job), run.losses, run_sizes_.of(run.job.config_hash, run.job.config_json)));
    }
    send_json(res, out.dump());
  });
  r.get("/api/sweeps/{}/metrics", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    coordinator::Coordinator::SeriesQuery q;
    try {
      q = series_query(req, options_.http_max_full_series_points);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto series = app_.sweep_series(args[0], q);
    if (!series.ok()) return send_error(res, series.status());
    json out = json::object();
    for (const coordinator::JobSeries& s : *series) out[s.job_id] = metric_columns(s.points);
    send_json(res, out.dump());
  });
  // The latest scaling-law fit version of a sweep, {"version": V, "fits": [Fit, ...]} with one Fit message per
  // law (report_json holds the report; law n comes with law c when tokens are tied to parameters), or with
  // ?all=1 the history a page at a time: {"fits": [...], "next_before_version": V} of at most `limit` versions
  // (1..100, default 10) below ?before_version (default: from the newest), newest first; next_before_version
  // only while older versions remain. 404 while the sweep has no fit.
  r.get("/api/sweeps/{}/fits", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    const bool all = req.param("all") == "1";
    std::int64_t limit = 1, before = 0;
    try {
      if (all) {
        limit = int_param(req, "limit", 1, limits::kMaxFitPageSize, limits::kDefaultFitPageSize);
        before = int_param(req, "before_version", 1, std::numeric_limits<int>::max(), 0);
      }
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto page = app_.fits(args[0], !all, {limit, before > 0 ? std::to_string(before) : ""});
    if (!page.ok()) return send_error(res, page.status());
    if (page->items.empty() && before == 0) return send_error(res, 404, "no scaling-law fit for this sweep yet");
    if (!all) return send_json(res, dashboard_latest_fits(to_proto(page->items)).dump());
    const std::string next = page->next_token.empty() ? "" : ",\"next_before_version\":" + page->next_token;
    send_json(res, "{\"fits\":" + proto_json_array(to_proto(page->items)) + next + "}");
  });
  r.get("/api/jobs/{}", [this](const HttpRequest&, HttpResponse& res, const Args& args) {
    auto job = app_.job(args[0]);
    if (!job.ok()) return send_error(res, job.status());
    send_json(res, dashboard_job(to_proto(*job)).dump());
  });
  r.get("/api/jobs/{}/metrics", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    coordinator::Coordinator::SeriesQuery q;
    try {
      q = series_query(req, options_.http_max_full_series_points);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto series = app_.job_series(args[0], q);
    if (!series.ok()) return send_error(res, series.status());
    send_json(res, metric_columns(series->points).dump());
  });
  r.get("/api/jobs/{}/events", [this](const HttpRequest& req, HttpResponse& res, const Args& args) {
    std::int64_t limit = 0;
    try {
      limit = int_param(req, "limit", 1, kMaxJobEvents, kDefaultJobEvents);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto history = app_.job_events(args[0], static_cast<std::size_t>(limit));
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
    std::int64_t tail_bytes = 0;
    try {
      tail_bytes = int_param(req, "tail_bytes", 1, kMaxLogTailBytes, kMaxLogTailBytes);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto log = app_.log_tail(args[0], static_cast<std::size_t>(tail_bytes));
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
  r.get(kMetricsPath, [this](const HttpRequest&, HttpResponse& res, const Args&) {
    res.set_content(CoordinatorMetrics::instance().scrape(store_, options_), kMetricsContentType);
  });
  r.get("/api/meta", [](const HttpRequest&, HttpResponse& res, const Args&) { send_json(res, dashboard_meta().dump()); });
  r.get(kHealthPath, [this](const HttpRequest&, HttpResponse& res, const Args&) {
    if (!store_.readable()) return send_error(res, 503, "the database does not answer");
    send_json(res, json{{"ok", true}}.dump());
  });
  r.get("/api/workers", [this](const HttpRequest& req, HttpResponse& res, const Args&) {
    auto workers = list_rows<WorkerRecord>(req, res, [this](const auto& p) { return app_.list_workers(p); });
    if (!workers.ok()) return send_error(res, workers.status());
    send_json(res, proto_json_array(to_proto(*workers)));
  });
  r.get("/api/events", [this](const HttpRequest& req, HttpResponse& res, const Args&) { open_event_stream(req, res); });
}

// GET /api/events: "hello" first, then "change" whenever published_version_ moves past what the stream last
// sent, and ": ping" at each ping round with no change. The source owns the stream's slot: it is given back
// when the server frees the stream, however the stream ends.
void HttpApi::open_event_stream(const HttpRequest& req, HttpResponse& res) {
  std::shared_ptr<void> slot = event_streams_.acquire(req.remote_addr);
  if (!slot) {
    res.set_header("Retry-After", "10");
    return send_error(res, 503,
                      "too many open event streams: at most " + std::to_string(event_streams_.per_client()) +
                          " per client and " + std::to_string(event_streams_.total()) +
                          " in all; close other dashboard tabs or retry later");
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  struct Stream {
    std::uint64_t sent_version = 0;
    std::uint64_t ping_round = 0;
    bool greeted = false;
  };
  auto stream = std::make_shared<Stream>();
  stream->sent_version = store_.version();
  stream->ping_round = ping_round_;
  const std::optional<std::int64_t> token_id = auth_.caller_token_id(req);
  res.set_stream(
      [this, stream, slot, token_id]() -> StreamStep {
        if (stopping_) return {StreamStep::kEnd, {}};
        if (token_id && auth_.revoked(*token_id)) return {StreamStep::kEnd, {}};
        if (!stream->greeted) {  // lets the client know the stream is live (and that it may have missed changes)
          stream->greeted = true;
          return {StreamStep::kSend,
                  "retry: 2000\nevent: hello\ndata: {\"version\":" + std::to_string(stream->sent_version) + "}\n\n"};
        }
        if (const std::uint64_t now = published_version_; now > stream->sent_version) {
          stream->sent_version = now;
          return {StreamStep::kSend, "event: change\ndata: {\"version\":" + std::to_string(now) + "}\n\n"};
        }
        if (const std::uint64_t round = ping_round_; round != stream->ping_round) {
          stream->ping_round = round;
          return {StreamStep::kSend, ": ping\n\n"};
        }
        return {StreamStep::kWait, {}};
      },
      "text/event-stream");
}

}  // namespace gammalab
