#pragma once
// The dashboard's HTTP side: static files from web/ and a JSON + Server-Sent-Events API over the store.
// Sweeps, jobs and workers are printed as their proto messages (proto field names, every field present), except
// that a job's state is spelled as everywhere else on this API: "pending", "running", ... (core/job_state.h).
//   GET /api/meta                        job states {name, active, terminal} in the order of a job's life,
//                                        fit_state, failed_state, metric names, the loss names {train, val}
//                                        and cli_fit_bootstrap (`gammalab fit`'s default resample count)
//   GET /api/sweeps                      every sweep with job counts
//   GET /api/sweeps/{id}                 one sweep (id or unique name)
//   GET /api/sweeps/{id}/jobs            its jobs
//   GET /api/sweeps/{id}/runs            per job: name, state, stage, variant, preset, params (N: activated,
//                                        non-embedding, as the scaling-law fits use), tokens, final losses
//   GET /api/sweeps/{id}/metrics?names=a,b               points of every job: {job_id: {name: columns}}
//   GET /api/sweeps/{id}/fits[?all=1]    the latest scaling-law fit version {"version", "fits": [Fit, ...]}
//   GET /api/jobs/{id}                   one job
//   GET /api/jobs/{id}/metrics?names=a,b&after_step=N   points of one job with step > N, columnar per name:
//                                        {"train/loss": {"step": [..], "tokens": [..], "value": [..]}};
//                                        NaN values are null
//     Both metrics routes also take from_step=A&to_step=B (only A <= step <= B: a zoomed chart) and
//     max_points=M (4..400000): each series downsampled to at most M/4 buckets of steps, each keeping its first, last,
//     lowest and highest point (core/metric_downsample.h); a series of at most M points comes back whole.
//   GET /api/jobs/{id}/events?limit=N    its history (1 <= N <= 1000, default 200: the newest N, oldest first):
//                                        {"events": [{id, at_ms, kind, state, attempt, worker_id, worker,
//                                        detail}], "earlier": bool}
//   GET /api/jobs/{id}/log?tail_bytes=N  the end of its log (1 <= N <= 65536, the default), valid UTF-8 without
//                                        control characters: {"exists", "size", "truncated", "text"}
//   GET /api/jobs/{id}/checkpoints       {"dir", "checkpoints": [{name, step, bytes, modified_ms}] (highest
//                                        step first, at most 100), "truncated"}: names and sizes only
//   POST /api/jobs/{id}/cancel           cancel it (pending: now; leased or running: by its worker), 409 when it
//                                        has ended; POST /api/jobs/{id}/retry: a failed or cancelled job back to
//                                        pending, 409 otherwise. Both answer the job.
//   GET /api/workers                     workers and what they run
//   GET /healthz                         200 {"ok": true} when the store answers a read, 503 otherwise; no
//                                        token needed (a container's health check)
//   GET /metrics                         Prometheus text format (server/prometheus_metrics.h); a metrics or a
//                                        user token
//   GET /api/events                      SSE: "hello" on connect, "change" whenever the store changes
//                                        (data: {"version": N}), a ": ping" comment every 15 s otherwise;
//                                        at most 8 open per client address and 256 in all (503 beyond);
//                                        a waiting stream holds no thread (http/http_server.h)
//   GET /vendor/uplot/...                the uPlot package's dist/ (web/node_modules/uplot/dist)
//   GET /NAME.html|js|css                the dashboard's own files at web/'s top level (server/dashboard_files.h);
//                                        every other path outside /api/ is 404
//   POST|GET|DELETE /api/session         a dashboard session (server/http_auth.h)
// Every other /api/ route needs a user token or a session: 401 without, 403 with a worker or metrics token.
// Errors are JSON {"error": "..."} with status 400 (bad parameter), 401, 403, 404 (no such sweep, job or
// route), 405 (a route of other methods), 409 (the job's state does not allow the action), 413 (a body over
// 64 KiB) or 500.
// With --tls-cert and --tls-key the server speaks HTTPS only.
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

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
  std::size_t open_event_streams() const;

 private:
  void add_routes();
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
