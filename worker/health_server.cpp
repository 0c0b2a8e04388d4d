#include "worker/health_server.h"

#include <httplib.h>

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
    : state_(std::move(state)), server_(std::make_unique<httplib::Server>()) {
  const auto [host, port] = parse_health_address(address);
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"status":"alive"})", "application/json");
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    const WorkerHealth h = state_();
    res.status = h.ready() ? 200 : 503;
    const nlohmann::json body = {{"ready", h.ready()},           {"connected", h.connected},
                                 {"draining", h.draining},       {"slots_total", h.slots_total},
                                 {"slots_busy", h.slots_busy}};
    res.set_content(body.dump(), "application/json");
  });
  server_->set_socket_options([](socket_t sock) {
    const int yes = 1;  // restartable while old connections linger; no SO_REUSEPORT (a second worker must fail)
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  port_ = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (port_ < 0) {
    throw std::runtime_error("--health " + address +
                             ": cannot listen there (the port is in use, or the host is not an address of this "
                             "machine)");
  }
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // httplib's stop() does nothing until the accept loop runs: wait for it, so that the destructor cannot hang.
  for (int waited_ms = 0; waited_ms < 10000 && !server_->is_running(); ++waited_ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

HealthServer::~HealthServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace gammalab
