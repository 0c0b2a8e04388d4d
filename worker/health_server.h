#pragma once
// The worker's health endpoints over HTTP (--health HOST:PORT), for Kubernetes probes and cluster checks:
//   GET /healthz  200 {"status":"alive"} while the process runs
//   GET /readyz   200 when connected to the coordinator and not draining, else 503; the body either way:
//                 {"ready": bool, "connected": bool, "draining": bool, "slots_total": N, "slots_busy": N}
// Any other path is 404. The server answers from its own threads; `state` must be thread-safe.
#include <functional>
#include <memory>
#include <string>

#include "http/http_server.h"
#include "worker/worker_health.h"

namespace gammalab {

class HealthServer {
 public:
  // Listens on `address` (HOST:PORT; port 0 = any free port). Throws std::invalid_argument naming --health for
  // a malformed address, std::runtime_error when it cannot listen there.
  HealthServer(const std::string& address, std::function<WorkerHealth()> state);
  ~HealthServer();  // stops and joins
  HealthServer(const HealthServer&) = delete;
  HealthServer& operator=(const HealthServer&) = delete;
  int port() const { return server_->port(); }

 private:
  void handle(const HttpRequest& req, HttpResponse& res) const;

  std::function<WorkerHealth()> state_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace gammalab
