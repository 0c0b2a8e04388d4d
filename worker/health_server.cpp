#include "worker/health_server.h"

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/host_port.h"

namespace gammalab {

HealthServer::HealthServer(const std::string& address, std::function<WorkerHealth()> state)
    : state_(std::move(state)) {
  const auto parsed = parse_host_port(address, "--health", /*min_port=*/0);  // 0: any free port
  if (const auto* reason = std::get_if<std::string>(&parsed)) throw std::invalid_argument(*reason);
  HttpServerOptions options;
  options.host = std::get<HostPort>(parsed).host;
  options.port = std::get<HostPort>(parsed).port;
  options.threads = 1;  // probes are rare and answered from memory
  options.max_connections = 64;
  options.max_connections_per_client = 16;
  options.max_body_bytes = 0;
  options.flag = "--health";
  server_ = std::make_unique<HttpServer>(std::move(options),
                                         [this](const HttpRequest& req, HttpResponse& res) { handle(req, res); });
}

HealthServer::~HealthServer() = default;

void HealthServer::handle(const HttpRequest& req, HttpResponse& res) const {
  const bool read = req.method == "GET" || req.method == "HEAD";
  if (read && req.path == "/healthz") return res.set_content(R"({"status":"alive"})", "application/json");
  if (read && req.path == "/readyz") {
    const WorkerHealth h = state_();
    res.status = h.ready() ? 200 : 503;
    const nlohmann::json body = {{"ready", h.ready()},           {"connected", h.connected},
                                 {"draining", h.draining},       {"slots_total", h.slots_total},
                                 {"slots_busy", h.slots_busy}};
    return res.set_content(body.dump(), "application/json");
  }
  res.status = 404;
  res.set_content("not found\n", "text/plain");
}

}  // namespace gammalab
