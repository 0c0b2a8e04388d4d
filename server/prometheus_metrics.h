#pragma once
// The coordinator's Prometheus metrics, served as text on GET /metrics of its HTTP port (docs/deploy.md lists
// them). Events are counted where they happen (ingest, lease expiry, SQLite writes, refits) into one process-wide
// registry; job and worker gauges are read from the store at scrape time, so they are never stale or double
// counted after a restart. Counters start at zero with the process, as Prometheus expects (it handles resets).
#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "server/server_options.h"
#include "server/store.h"

namespace gammalab {

inline constexpr std::string_view kMetricsPath = "/metrics";
// The Content-Type of Prometheus's text exposition format.
inline constexpr std::string_view kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

class CoordinatorMetrics {
 public:
  // The process's metrics: every hook and the /metrics route share it (a second registry would split counts).
  static CoordinatorMetrics& instance();

  // Of the metric points a report carried (`received`), those it added; the rest were already stored.
  void points_ingested(std::int64_t received, std::int64_t stored);
  void leases_expired(int n);                 // leases whose heartbeats stopped; their jobs were requeued or failed
  void sqlite_write(std::chrono::nanoseconds took);                      // one writing statement or COMMIT
  void fit_finished(std::chrono::steady_clock::duration took, bool ok);  // one background refit of a sweep

  // The text exposition: the counters above plus, read now from the store, jobs by state, active leases,
  // live workers and alerts by rule, and the build.
  std::string scrape(Store& store, const ServerOptions& options);

 private:
  CoordinatorMetrics();

  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Counter& points_ingested_;
  prometheus::Counter& points_repeated_;
  prometheus::Counter& leases_expired_;
  prometheus::Histogram& sqlite_write_seconds_;
  prometheus::Family<prometheus::Histogram>& fit_seconds_;
  prometheus::Family<prometheus::Gauge>& jobs_;
  prometheus::Family<prometheus::Gauge>& alerts_;
  prometheus::Gauge& active_leases_;
  prometheus::Gauge& workers_alive_;
  prometheus::Gauge& worker_slots_;
};

// Reports every writing statement of the store's connection (and its COMMITs, the fsync) to
// CoordinatorMetrics::sqlite_write. Called once at start-up.
void observe_sqlite_writes(Store& store);

}  // namespace gammalab
