#include "worker/health_server.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace gammalab {

namespace {

// HOST:PORT with a port in 0..65535; the host is checked by the bind itself.
std::pair<std::string, int> parse_health_address(const std::string& address) {
  const auto colon = address.rfind(':');
  const std::string port_text = colon == std::string::npos ? "" : address.substr(colon + 1);
  int port = -1;
  const auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (colon == std::string::npos || colon == 0 || error != std::errc() || end != port_text.data() + port_text.size() ||
      port < 0 || port > 65535) {
    throw std::invalid_argument("--health: expected HOST:PORT with a port from 0 to 65535, got '" + address + "'");
  }
  return {address.substr(0, colon), port};
}

}  // namespace

HealthServer::HealthServer(const std::string& address, std::function<WorkerHealth()> state)
    : state_(std::move(state)) {
  const auto [host, port] = parse_health_address(address);
  HttpServerOptions options;
  options.host = host;
  options.port = port;
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
