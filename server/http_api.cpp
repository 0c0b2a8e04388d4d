// The dashboard's HTTP API and static files (routes in server/http_api.h): the server, the one entry of every
// request (its checks), the event stream and the service routes. The API's routes by what they serve are in
// server/http_sweep_routes.cpp, http_job_routes.cpp and http_note_routes.cpp.
#include "server/http_api.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "core/host_port.h"
#include "core/utf8_text.h"
#include "http/http_router.h"
#include "http/http_server.h"
#include "proto/convert.h"
#include "proto/dashboard_json.h"
#include "proto/proto_json.h"
#include "server/dashboard_files.h"
#include "server/http_query.h"
#include "server/http_replies.h"
#include "server/loopback.h"
#include "server/prometheus_metrics.h"
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

std::vector<std::string> HttpApi::routes() const { return router_->routes(); }

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
  add_sweep_routes(r);
  add_job_routes(r);
  add_note_routes(r);
  r.get(kMetricsPath, [this](const HttpRequest&, HttpResponse& res, const Args&) {
    res.set_content(CoordinatorMetrics::instance().scrape(store_, options_), kMetricsContentType);
  });
  r.get("/api/meta", [](const HttpRequest&, HttpResponse& res, const Args&) { send_json(res, dashboard_meta().dump()); });
  r.get(kHealthPath, [this](const HttpRequest&, HttpResponse& res, const Args&) {
    if (!store_.readable()) return send_error(res, 503, "the database does not answer");
    send_json(res, json{{"ok", true}}.dump());
  });
  r.get("/api/workers", [this](const HttpRequest& req, HttpResponse& res, const Args&) {
    auto workers = http_query::list_rows<WorkerRecord>(req, res, [this](const auto& p) { return app_.list_workers(p); });
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
