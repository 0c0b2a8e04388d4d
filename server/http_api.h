#pragma once
// The dashboard's HTTP side: static files from web/ and a JSON + Server-Sent-Events API over the application layer
// (server/coordinator/coordinator.h). The API's reference, one section per route with its parameters, limits and
// answers, is docs/dashboard.md; tests/service/http_route_docs_test.cpp holds it and the router to one list.
// Sweeps, jobs and workers are printed as their proto messages (proto field names, every field present), except
// that a job's state is spelled as everywhere else: "pending", "running", ... (core/job_state.h). Every /api/
// route but the session's needs a user token or a session (401 without, 403 with a worker or metrics token);
// /metrics a metrics or user token; /healthz none. Errors are JSON {"error": "..."} (server/http_replies.h).
// With --tls-cert and --tls-key the server speaks HTTPS only.
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "http/http_server.h"
#include "server/coordinator/coordinator.h"
#include "server/run_sizes.h"
#include "server/stream_slots.h"
#include "server/http_auth.h"
#include "server/server_options.h"
#include "server/store.h"
#include "server/tokens.h"

namespace gammalab {

class HttpRouter;

class HttpApi {
 public:
  // tokens null: no auth (--insecure-no-auth). Throws std::invalid_argument for a malformed --http and
  // std::runtime_error when it cannot listen there.
  HttpApi(Store& store, const ServerOptions& options, Tokens* tokens = nullptr);
  ~HttpApi();  // ends open event streams, stops and joins
  int port() const;
  // Every route of the API as "METHOD /path/{}" (http/http_router.h): docs/dashboard.md must name each.
  std::vector<std::string> routes() const;
  std::size_t open_event_streams() const;

 private:
  void add_routes();
  // The API's routes by what they serve (server/http_sweep_routes.cpp, http_job_routes.cpp, http_note_routes.cpp).
  void add_sweep_routes(HttpRouter& r);
  void add_job_routes(HttpRouter& r);
  void add_note_routes(HttpRouter& r);
  void handle(const HttpRequest& req, HttpResponse& res);
  void open_event_stream(const HttpRequest& req, HttpResponse& res);
  void notify_streams();

  Store& store_;
  const ServerOptions& options_;
  coordinator::Coordinator app_;  // the operations behind the API's routes
  RunSizes run_sizes_;            // the runs table's sizes, per config
  HttpAuth auth_;
  // Before server_: a stream's slot is given back when the server, which owns the stream, is destroyed.
  StreamSlots event_streams_;
  std::unique_ptr<HttpRouter> router_;
  // What the event streams read (they must not wait on the store): the store's version once a burst of
  // changes is over, and how many ping rounds have passed.
  std::atomic<std::uint64_t> published_version_{0};
  std::atomic<std::uint64_t> ping_round_{0};
  std::atomic<bool> stopping_{false};
  std::unique_ptr<HttpServer> server_;
  std::thread notifier_;  // notify_streams()
};

}  // namespace gammalab
