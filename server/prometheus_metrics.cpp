// The coordinator's Prometheus metrics (see server/prometheus_metrics.h).
#include "server/prometheus_metrics.h"

#include <prometheus/text_serializer.h>
#include <sqlite3.h>

#include <map>
#include <unordered_map>

#include "core/job_state.h"

namespace gammalab {

namespace {

// Bucket bounds in seconds. A write is a page or two plus, for COMMIT, an fsync: 50 µs to 5 s. A refit is a few
// Ceres solves with bootstrap resamples: 10 ms to 10 min.
const prometheus::Histogram::BucketBoundaries kSqliteWriteBuckets = {
    0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};
const prometheus::Histogram::BucketBoundaries kFitBuckets = {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300, 600};

double seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

// sqlite3_trace_v2's callback. SQLite's own profile time has the VFS clock's millisecond resolution, so a
// statement's run time is measured here instead, from its start (SQLITE_TRACE_STMT, P the statement) to its end
// (SQLITE_TRACE_PROFILE). The store runs one statement at a time under its lock, but a thread-local map keeps
// this right whatever the threading. Transaction control reads as "read only" to SQLite, but COMMIT is where a
// write reaches the disk, so it counts as one.
int on_statement_traced(unsigned type, void*, void* p, void*) {
  thread_local std::unordered_map<void*, std::chrono::steady_clock::time_point> started;
  if (type == SQLITE_TRACE_STMT) {
    started.try_emplace(p, std::chrono::steady_clock::now());  // a trigger's own STMT event keeps the first start
    return 0;
  }
  if (type != SQLITE_TRACE_PROFILE) return 0;
  const auto it = started.find(p);
  if (it == started.end()) return 0;
  const auto took = std::chrono::steady_clock::now() - it->second;
  started.erase(it);
  auto* stmt = static_cast<sqlite3_stmt*>(p);
  const char* sql = sqlite3_sql(stmt);
  const bool commit = sql != nullptr && sqlite3_strnicmp(sql, "COMMIT", 6) == 0;
  if (commit || !sqlite3_stmt_readonly(stmt)) {
    CoordinatorMetrics::instance().sqlite_write(std::chrono::duration_cast<std::chrono::nanoseconds>(took));
  }
  return 0;
}

}  // namespace

CoordinatorMetrics& CoordinatorMetrics::instance() {
  static CoordinatorMetrics* metrics = new CoordinatorMetrics();  // never destroyed: hooks may run during exit
  return *metrics;
}

CoordinatorMetrics::CoordinatorMetrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      points_ingested_(prometheus::BuildCounter()
                           .Name("gammalab_metric_points_ingested_total")
                           .Help("Metric points stored from workers' reports (resent points are not counted)")
                           .Register(*registry_)
                           .Add({})),
      points_repeated_(prometheus::BuildCounter()
                           .Name("gammalab_metric_points_repeated_total")
                           .Help("Metric points reports carried that were already stored: resends after an unclear "
                                 "failure. A resumed trainer prints only what the lease says is missing, so a "
                                 "steady rise means work done twice")
                           .Register(*registry_)
                           .Add({})),
      leases_expired_(prometheus::BuildCounter()
                          .Name("gammalab_leases_expired_total")
                          .Help("Job leases that expired after missed heartbeats; each job was requeued, or failed "
                                "after its last attempt")
                          .Register(*registry_)
                          .Add({})),
      sqlite_write_seconds_(prometheus::BuildHistogram()
                                .Name("gammalab_sqlite_write_seconds")
                                .Help("Run time of each writing SQLite statement of the store, COMMIT included")
                                .Register(*registry_)
                                .Add({}, kSqliteWriteBuckets)),
      fit_seconds_(prometheus::BuildHistogram()
                       .Name("gammalab_fit_duration_seconds")
                       .Help("Duration of each background scaling-law refit of a sweep, by result")
                       .Register(*registry_)),
      jobs_(prometheus::BuildGauge().Name("gammalab_jobs").Help("Jobs of every sweep by state").Register(*registry_)),
      alerts_(prometheus::BuildGauge()
                  .Name("gammalab_alerts")
                  .Help("Alerts stored, by rule (docs/alerts.md): a count that only grows, read from the database")
                  .Register(*registry_)),
      active_leases_(prometheus::BuildGauge()
                         .Name("gammalab_active_leases")
                         .Help("Jobs held under a worker's lease (leased or running)")
                         .Register(*registry_)
                         .Add({})),
      workers_alive_(prometheus::BuildGauge()
                         .Name("gammalab_workers_alive")
                         .Help("Workers that sent a heartbeat within the lease timeout")
                         .Register(*registry_)
                         .Add({})),
      worker_slots_(prometheus::BuildGauge()
                        .Name("gammalab_worker_slots")
                        .Help("Job slots of the live workers")
                        .Register(*registry_)
                        .Add({})) {
  prometheus::BuildGauge()
      .Name("gammalab_build_info")
      .Help("Always 1; the labels name the build")
      .Register(*registry_)
      .Add({{"version", GAMMALAB_VERSION}, {"compiler", __VERSION__}})
      .Set(1);
  // Both results exist from the start, so a rate over them is defined before the first refit.
  fit_seconds_.Add({{"result", "ok"}}, kFitBuckets);
  fit_seconds_.Add({{"result", "error"}}, kFitBuckets);
  for (JobState s : kJobStates) jobs_.Add({{"state", std::string(job_state_name(s))}});
  for (std::string_view rule : alert_rule::kAll) alerts_.Add({{"rule", std::string(rule)}});
}

void CoordinatorMetrics::points_ingested(std::int64_t received, std::int64_t stored) {
  if (stored > 0) points_ingested_.Increment(static_cast<double>(stored));
  if (received > stored) points_repeated_.Increment(static_cast<double>(received - stored));
}

void CoordinatorMetrics::leases_expired(int n) {
  if (n > 0) leases_expired_.Increment(n);
}

void CoordinatorMetrics::sqlite_write(std::chrono::nanoseconds took) { sqlite_write_seconds_.Observe(seconds(took)); }

void CoordinatorMetrics::fit_finished(std::chrono::steady_clock::duration took, bool ok) {
  fit_seconds_.Add({{"result", ok ? "ok" : "error"}}, kFitBuckets)
      .Observe(seconds(std::chrono::duration_cast<std::chrono::nanoseconds>(took)));
}

std::string CoordinatorMetrics::scrape(Store& store, const ServerOptions& options) {
  std::map<std::string, std::int64_t, std::less<>> by_state;
  for (JobState s : kJobStates) by_state[std::string(job_state_name(s))] = 0;
  for (const SweepRecord& sweep : store.list_sweeps()) {
    for (const auto& [state, n] : sweep.job_counts) by_state[state] += n;
  }
  for (const auto& [state, n] : by_state) jobs_.Add({{"state", state}}).Set(static_cast<double>(n));
  active_leases_.Set(static_cast<double>(by_state[std::string(job_state_name(JobState::kLeased))] +
                                         by_state[std::string(job_state_name(JobState::kRunning))]));
  int alive = 0;
  int slots = 0;
  for (const WorkerRecord& w : store.list_workers(options.lease_timeout_ms)) {
    if (!w.alive) continue;
    ++alive;
    slots += w.slots;
  }
  workers_alive_.Set(alive);
  worker_slots_.Set(slots);
  for (const auto& [rule, n] : store.alert_counts()) alerts_.Add({{"rule", rule}}).Set(static_cast<double>(n));
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

void observe_sqlite_writes(Store& store) {
  store.with_connection([](sqlite3* db) {
    sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE, on_statement_traced, nullptr);
  });
}

}  // namespace gammalab
