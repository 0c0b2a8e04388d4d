// The dashboard's HTTP API and static files (routes in server/http_api.h).
#include "server/http_api.h"

#include <absl/strings/str_split.h>
#include <httplib.h>

#include <chrono>
#include <filesystem>
#include <limits>
#include <thread>

#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

#include "core/metric_downsample.h"
#include "core/metric_names.h"
#include "core/shared_root.h"
#include "core/utf8_text.h"
#include "core/scaling/job_points.h"
#include "proto/dashboard_json.h"
#include "proto/proto_json.h"
#include "server/dashboard_files.h"
#include "server/job_files.h"
#include "server/pending_reason.h"
#include "server/prometheus_metrics.h"
#include "server/tls_files.h"

namespace gammalab {

namespace {

using nlohmann::json;

constexpr std::size_t kHttpThreads = 48;
// A container's or a load balancer's health check: 200 {"ok": true} once the store answered a read, 503 if it
// failed. No token (the checker has none) and nothing in it but that.
constexpr std::string_view kHealthPath = "/healthz";
// Event streams each hold a thread (server/event_stream_slots.h): at most these, so that 32 threads always
// serve the other requests.
constexpr std::size_t kMaxEventStreams = 16;
constexpr std::size_t kMaxEventStreamsPerClient = 4;
// A client that sends nothing, or sends a request byte by byte, is cut off after this long per read, and
// an idle keep-alive connection after this long; nothing the dashboard sends is larger than the payload limit.
constexpr time_t kReadTimeoutSeconds = 5;
constexpr time_t kKeepAliveSeconds = 5;
constexpr std::size_t kMaxRequestBodyBytes = 64 * 1024;
// A job's history, log tail and checkpoint list are bounded whatever the job's past or its files.
constexpr std::int64_t kDefaultJobEvents = 200;
constexpr std::int64_t kMaxJobEvents = 1000;
constexpr std::int64_t kMaxLogTailBytes = 64 * 1024;
constexpr std::size_t kMaxCheckpointsListed = 100;

// On every response. The dashboard is this origin's own modules and stylesheets only: no inline script or
// style, no other origin to load from or send to, never framed (so no clickjacking of its buttons), and
// nothing sniffed into a type it was not served as.
httplib::Headers security_headers() {
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
bool cross_origin_write(const httplib::Request& req) {
  if (req.method == "GET" || req.method == "HEAD") return false;
  if (!req.has_header("Origin")) return false;  // not from a browser page (curl, the CLI)
  const std::string origin = req.get_header_value("Origin");
  const std::string host = req.get_header_value("Host");
  return host.empty() || (origin != "http://" + host && origin != "https://" + host);
}

// Every answer goes out uncompressed. Debian's cpp-httplib compresses whatever the client accepts, brotli first,
// at brotli's highest quality: a sweep's 2.4 MB metrics answer took 6.9 s with brotli, 0.95 s with gzip and
// 0.46 s as it is (20 jobs x 4,000 points, measured on loopback), and a dashboard's first draw waited on it.
// httplib has no switch for it, so the request's Accept-Encoding is dropped before httplib reads it. The
// request is httplib's own non-const object, handed to this handler as const: the cast is well defined.
void answer_uncompressed(const httplib::Request& req) {
  auto& headers = const_cast<httplib::Request&>(req).headers;
  headers.erase("Accept-Encoding");
}

void send_json(httplib::Response& res, const std::string& body) {
  res.set_header("Cache-Control", "no-store");
  res.set_content(body, "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  send_json(res, json{{"error", message}}.dump());
}

// ?names=a,b as a list; empty parts are dropped, no names = every metric.
std::vector<std::string> names_param(const httplib::Request& req) {
  return absl::StrSplit(req.get_param_value("names"), ',', absl::SkipEmpty());
}

std::pair<std::string, int> host_port(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument("--http: expected HOST:PORT, got '" + address + "'");
  return {address.substr(0, colon), std::stoi(address.substr(colon + 1))};
}

// An integer query parameter in [lo, hi], or `fallback` when absent. Throws std::invalid_argument naming the
// parameter, the limits and the value.
std::int64_t int_param(const httplib::Request& req, const char* name, std::int64_t lo, std::int64_t hi,
                       std::int64_t fallback) {
  if (!req.has_param(name)) return fallback;
  const std::string text = req.get_param_value(name);
  std::size_t used = 0;
  std::int64_t value = 0;
  try {
    value = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || value < lo || value > hi) {
    const std::string range = hi == std::numeric_limits<std::int64_t>::max()
                                  ? ">= " + std::to_string(lo)
                                  : "from " + std::to_string(lo) + " to " + std::to_string(hi);
    throw std::invalid_argument(std::string(name) + ": expected an integer " + range + ", got '" + text.substr(0, 64) +
                                "'");
  }
  return value;
}

// Which points of each series a metrics request wants: steps after `after_step` (the live append) and within
// [from_step, to_step] (a zoomed chart), at most `max_points` per series (0: all of them), downsampled by
// core/metric_downsample.h. Throws std::invalid_argument with a message for the client.
struct SeriesQuery {
  std::int64_t after_step = -1;
  std::int64_t to_step = std::numeric_limits<std::int64_t>::max();
  std::size_t buckets = 0;  // 0: every point
};

SeriesQuery series_query(const httplib::Request& req) {
  constexpr auto kNoLimit = std::numeric_limits<std::int64_t>::max();
  SeriesQuery q;
  q.after_step = int_param(req, "after_step", -1, kNoLimit, -1);
  const std::int64_t from = int_param(req, "from_step", 0, kNoLimit, 0);
  q.after_step = std::max(q.after_step, from - 1);
  q.to_step = int_param(req, "to_step", 0, kNoLimit, kNoLimit);
  if (req.has_param("from_step") && q.to_step < from) {
    throw std::invalid_argument("to_step: expected at least from_step (" + std::to_string(from) + "), got " +
                                std::to_string(q.to_step));
  }
  // Four points per bucket (first, last, lowest, highest): max_points / 4 buckets.
  const std::int64_t max_points =
      int_param(req, "max_points", 4 * kMinDownsampleBuckets, 4 * kMaxDownsampleBuckets, 0);
  q.buckets = static_cast<std::size_t>(max_points / 4);
  return q;
}

// The points a SeriesQuery asks for: downsampled by the store from its tiles, or every one.
std::vector<MetricPoint> series(Store& store, const std::string& job_id, const std::vector<std::string>& names,
                                const SeriesQuery& q) {
  if (q.buckets == 0) return store.metrics(job_id, names, q.after_step, q.to_step);
  return store.downsampled_metrics(job_id, names, q.after_step, q.to_step, q.buckets);
}

// One row of /api/sweeps/{id}/runs (proto/dashboard_json.h), from the ends of the job's loss curves.
json run_row(Store& store, const v1::Job& job) { return dashboard_run(job, store.loss_tails(job.id())); }

}  // namespace

namespace {

// HTTPS with --tls-cert/--tls-key (checked by read_tls_files first, so a bad file is a clear error), else HTTP.
std::unique_ptr<httplib::Server> make_server(const ServerOptions& options) {
  if (!read_tls_files(options)) return std::make_unique<httplib::Server>();
  auto server = std::make_unique<httplib::SSLServer>(options.tls_cert.c_str(), options.tls_key.c_str());
  if (!server->is_valid()) {
    throw std::runtime_error("--tls-cert " + options.tls_cert + " / --tls-key " + options.tls_key +
                             ": the HTTP server cannot use them (not a certificate and its key?)");
  }
  return server;
}

}  // namespace

HttpApi::HttpApi(Store& store, const ServerOptions& options, Tokens* tokens)
    : store_(store),
      options_(options),
      auth_(tokens, !options.tls_cert.empty()),
      event_streams_(kMaxEventStreams, kMaxEventStreamsPerClient),
      server_(make_server(options)) {
  auto& s = *server_;
  s.set_default_headers(security_headers());
  s.set_read_timeout(kReadTimeoutSeconds);
  s.set_write_timeout(kReadTimeoutSeconds);
  s.set_keep_alive_timeout(kKeepAliveSeconds);
  s.set_payload_max_length(kMaxRequestBodyBytes);
  s.Post("/api/session", [this](const httplib::Request& req, httplib::Response& res) { auth_.open_session(req, res); });
  s.Delete("/api/session",
           [this](const httplib::Request& req, httplib::Response& res) { auth_.close_session(req, res); });
  s.Get("/api/session", [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, json{{"auth", auth_.enabled()}}.dump());  // only reached past the pre-routing check
  });
  // Every open dashboard holds one thread in its event stream: more threads than httplib's default (8).
  s.new_task_queue = [] { return new httplib::ThreadPool(kHttpThreads); };
  s.Get("/api/sweeps", [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, proto_json_array(store_.list_sweeps()));
  });
  s.Get(R"(/api/sweeps/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto sweep = store_.find_sweep(req.matches[1]);
    if (!sweep) return send_error(res, 404, "sweep not found");
    send_json(res, proto_to_json(*sweep));
  });
  s.Get(R"(/api/sweeps/([^/]+)/jobs)", [this](const httplib::Request& req, httplib::Response& res) {
    auto sweep = store_.find_sweep(req.matches[1]);
    if (!sweep) return send_error(res, 404, "sweep not found");
    auto jobs = nlohmann::ordered_json::array();
    std::vector<v1::Job> list = store_.list_jobs(sweep->id());
    std::vector<v1::Job*> listed;
    for (v1::Job& job : list) listed.push_back(&job);
    explain_pending(store_, options_.lease_timeout_ms, listed);
    for (const auto& job : list) jobs.push_back(dashboard_job(job));
    send_json(res, jobs.dump());
  });
  s.Get(R"(/api/sweeps/([^/]+)/runs)", [this](const httplib::Request& req, httplib::Response& res) {
    auto sweep = store_.find_sweep(req.matches[1]);
    if (!sweep) return send_error(res, 404, "sweep not found");
    json out = json::array();
    for (const auto& job : store_.list_jobs(sweep->id())) out.push_back(run_row(store_, job));
    send_json(res, out.dump());
  });
  s.Get(R"(/api/sweeps/([^/]+)/metrics)", [this](const httplib::Request& req, httplib::Response& res) {
    auto sweep = store_.find_sweep(req.matches[1]);
    if (!sweep) return send_error(res, 404, "sweep not found");
    SeriesQuery q;
    try {
      q = series_query(req);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    const std::vector<std::string> names = names_param(req);
    json out = json::object();
    for (const auto& job : store_.list_jobs(sweep->id())) {
      out[job.id()] = metric_columns(series(store_, job.id(), names, q));
    }
    send_json(res, out.dump());
  });
  // The latest scaling-law fit version of a sweep, {"version": V, "fits": [Fit, ...]} with one Fit message per
  // law (report_json holds the report; law n comes with law c when tokens are tied to parameters), or every
  // version's with ?all=1 ({"fits": [...]}, newest first). 404 while the sweep has no fit.
  s.Get(R"(/api/sweeps/([^/]+)/fits)", [this](const httplib::Request& req, httplib::Response& res) {
    auto sweep = store_.find_sweep(req.matches[1]);
    if (!sweep) return send_error(res, 404, "sweep not found");
    const bool all = req.get_param_value("all") == "1";
    const auto fits = store_.fits(sweep->id(), !all);
    if (fits.empty()) return send_error(res, 404, "no scaling-law fit for this sweep yet");
    const std::string version = all ? "" : "\"version\":" + std::to_string(fits.front().version()) + ",";
    send_json(res, "{" + version + "\"fits\":" + proto_json_array(fits) + "}");
  });
  s.Get(R"(/api/jobs/([^/]+))", [this](const httplib::Request& req, httplib::Response& res) {
    auto job = store_.find_job(req.matches[1]);
    if (!job) return send_error(res, 404, "job not found");
    explain_pending(store_, options_.lease_timeout_ms, {&*job});
    send_json(res, dashboard_job(*job).dump());
  });
  s.Get(R"(/api/jobs/([^/]+)/metrics)", [this](const httplib::Request& req, httplib::Response& res) {
    SeriesQuery q;
    try {
      q = series_query(req);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto job = store_.find_job(req.matches[1]);
    if (!job) return send_error(res, 404, "job not found");
    const std::vector<std::string> names = names_param(req);
    send_json(res, metric_columns(series(store_, job->id(), names, q)).dump());
  });
  s.Get(R"(/api/jobs/([^/]+)/events)", [this](const httplib::Request& req, httplib::Response& res) {
    std::int64_t limit = 0;
    try {
      limit = int_param(req, "limit", 1, kMaxJobEvents, kDefaultJobEvents);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto job = store_.find_job(req.matches[1]);
    if (!job) return send_error(res, 404, "job not found");
    const Store::JobHistory history = store_.job_events(job->id(), static_cast<std::size_t>(limit));
    json events = json::array();
    for (const JobEvent& e : history.events) {
      events.push_back({{"id", std::to_string(e.id)}, {"at_ms", e.at_ms}, {"kind", e.kind},
                        {"state", std::string(job_state_name(e.state))}, {"attempt", e.attempt},
                        {"worker_id", e.worker_id}, {"worker", e.worker_hostname}, {"detail", e.detail}});
    }
    send_json(res, json{{"events", std::move(events)}, {"earlier", history.earlier}}.dump());
  });
  s.Get(R"(/api/jobs/([^/]+)/log)", [this](const httplib::Request& req, httplib::Response& res) {
    std::int64_t tail_bytes = 0;
    try {
      tail_bytes = int_param(req, "tail_bytes", 1, kMaxLogTailBytes, kMaxLogTailBytes);
    } catch (const std::invalid_argument& e) {
      return send_error(res, 400, e.what());
    }
    auto job = store_.find_job(req.matches[1]);
    if (!job) return send_error(res, 404, "job not found");
    const LogTail tail = read_log_tail(options_.shared_root, job->id(), static_cast<std::size_t>(tail_bytes));
    send_json(res, json{{"exists", tail.exists}, {"size", tail.size}, {"truncated", tail.truncated},
                        {"text", tail.text}}.dump());
  });
  s.Get(R"(/api/jobs/([^/]+)/checkpoints)", [this](const httplib::Request& req, httplib::Response& res) {
    auto job = store_.find_job(req.matches[1]);
    if (!job) return send_error(res, 404, "job not found");
    const CheckpointList list = list_checkpoints(options_.shared_root, job->id(), kMaxCheckpointsListed);
    json files = json::array();
    for (const CheckpointFile& f : list.files) {
      files.push_back({{"name", f.name}, {"step", f.step}, {"bytes", f.bytes}, {"modified_ms", f.modified_ms}});
    }
    send_json(res, json{{"dir", shared_root::job_ckpt_dir(job->id()).string()}, {"checkpoints", std::move(files)},
                        {"truncated", list.truncated}}.dump());
  });
  // The user's two actions on a job, the same store operations as the Coordinator service's CancelSweep (with
  // this one job) and RetryJob. 409 when the job's state does not allow it.
  s.Post(R"(/api/jobs/([^/]+)/cancel)", [this](const httplib::Request& req, httplib::Response& res) {
    auto job = store_.find_job(req.matches[1]);
    if (!job) return send_error(res, 404, "job not found");
    if (store_.cancel(job->sweep_id(), {job->id()}) == 0) {
      job = store_.find_job(job->id());
      return send_error(res, 409, "job " + job->id() + " is " + dashboard_state(job->state()) +
                                      "; only pending, leased or running jobs can be cancelled");
    }
    send_json(res, dashboard_job(*store_.find_job(job->id())).dump());
  });
  s.Post(R"(/api/jobs/([^/]+)/retry)", [this](const httplib::Request& req, httplib::Response& res) {
    auto job = store_.find_job(req.matches[1]);
    if (!job) return send_error(res, 404, "job not found");
    auto retried = store_.retry(job->id());
    if (!retried) {
      job = store_.find_job(job->id());
      return send_error(res, 409, "job " + job->id() + " is " + dashboard_state(job->state()) +
                                      "; only failed or cancelled jobs can be retried");
    }
    send_json(res, dashboard_job(*retried).dump());
  });
  s.Get(std::string(kMetricsPath), [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(CoordinatorMetrics::instance().scrape(store_, options_), std::string(kMetricsContentType));
  });
  s.Get("/api/meta", [](const httplib::Request&, httplib::Response& res) { send_json(res, dashboard_meta().dump()); });
  s.Get(std::string(kHealthPath), [this](const httplib::Request&, httplib::Response& res) {
    if (!store_.readable()) return send_error(res, 503, "the database does not answer");
    send_json(res, json{{"ok", true}}.dump());
  });
  s.Get("/api/workers", [this](const httplib::Request&, httplib::Response& res) {
    send_json(res, proto_json_array(store_.list_workers(options_.lease_timeout_ms)));
  });
  s.Get("/api/events", [this](const httplib::Request& req, httplib::Response& res) {
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
      std::uint64_t seen = 0;
      bool greeted = false;
    };
    auto stream = std::make_shared<Stream>();
    stream->seen = store_.version();
    // The provider owns the slot: it is given back when the stream ends, however it ends.
    res.set_chunked_content_provider("text/event-stream", [this, stream, slot](size_t, httplib::DataSink& sink) {
      auto send = [&sink](const std::string& text) { return sink.write(text.data(), text.size()); };
      if (!stream->greeted) {  // lets the client know the stream is live (and that it may have missed changes)
        stream->greeted = true;
        return send("retry: 2000\nevent: hello\ndata: {\"version\":" + std::to_string(stream->seen) + "}\n\n");
      }
      // Wait in short slices so that shutting down does not wait for a quiet stream's ping.
      const auto ping_at = std::chrono::steady_clock::now() + std::chrono::seconds(15);
      while (!stopping_ && std::chrono::steady_clock::now() < ping_at) {
        std::uint64_t now = store_.wait_for_change(stream->seen, std::chrono::milliseconds(250));
        if (now == stream->seen) continue;
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // coalesce bursts of metric writes
        now = store_.version();
        stream->seen = now;
        return send("event: change\ndata: {\"version\":" + std::to_string(now) + "}\n\n");
      }
      if (stopping_) {
        sink.done();
        return false;
      }
      return send(": ping\n\n");
    });
  });

  // Static files: the uPlot package and the dashboard itself (the first matching mount point wins).
  if (!options_.web_root.empty()) {
    const auto uplot = options_.web_root / "node_modules" / "uplot" / "dist";
    if (!s.set_mount_point("/vendor/uplot", uplot.string())) {
      spdlog::warn("dashboard: {} not found (run `npm ci` in web/); the plots will not load", uplot.string());
    }
    if (!s.set_mount_point("/", options_.web_root.string())) {
      spdlog::warn("dashboard: web root {} not found", options_.web_root.string());
    }
  }
  s.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    answer_uncompressed(req);
    if (cross_origin_write(req)) {
      send_error(res, 403, "cross-origin request refused: Origin " + utf8_head(req.get_header_value("Origin"), 200) +
                               " is not this dashboard's");
      return httplib::Server::HandlerResponse::Handled;
    }
    const bool api = req.path.rfind("/api/", 0) == 0;
    const bool scrape = req.path == kMetricsPath;
    if (req.path == kHealthPath) return httplib::Server::HandlerResponse::Unhandled;  // no token: it tells nothing
    if (!api && !scrape && !is_dashboard_file(req.path)) {
      res.status = 404;
      res.set_content("not found\n", "text/plain");
      return httplib::Server::HandlerResponse::Handled;
    }
    // The one auth check of the HTTP API (server/http_auth.h); opening or closing a session checks its own.
    if (scrape || (api && !(req.path == "/api/session" && req.method != "GET"))) {
      std::string reason;
      if (const int status = auth_.check(req, reason, scrape); status != 0) {
        send_error(res, status, reason);
        return httplib::Server::HandlerResponse::Handled;
      }
    }
    return httplib::Server::HandlerResponse::Unhandled;
  });
  s.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    // Unknown API routes answer JSON like the others; handlers that set a body keep it.
    if (req.path.rfind("/api/", 0) == 0 && res.body.empty()) {
      send_json(res, json{{"error", res.status == 404 ? "no such route" : "request failed"}}.dump());
    }
  });
  s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    res.status = 500;
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      send_json(res, json{{"error", e.what()}}.dump());
    } catch (...) {
      send_json(res, json{{"error", "unknown error"}}.dump());
    }
  });

  // httplib sets SO_REUSEPORT, with which a second server binds a port in use and the two share its
  // connections; SO_REUSEADDR alone still allows a restart while old connections linger in TIME_WAIT.
  s.set_socket_options([](socket_t sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  auto [host, port] = host_port(options_.http_address);
  port_ = port == 0 ? s.bind_to_any_port(host) : (s.bind_to_port(host, port) ? port : -1);
  if (port_ < 0) {
    throw std::runtime_error("--http " + options_.http_address +
                             ": cannot listen there (the port is in use, or the host is not an address of this "
                             "machine)");
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // httplib's stop() does nothing until the accept loop runs: without this wait, a server destroyed right
  // after it was made (a failed start next to it) would never stop and its destructor would hang on join.
  for (int waited_ms = 0; waited_ms < 10000 && !server_->is_running(); ++waited_ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

HttpApi::~HttpApi() {
  stopping_ = true;
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace gammalab
