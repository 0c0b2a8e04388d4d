// Benchmark (not a test): lease latency and metric ingest through the coordinator, each printed beside a
// reference measured in the same run on the same machine:
//   lease over gRPC            vs  Store::lease called directly (the SQLite transaction alone)
//   a lease from a long queue   vs  a lease from a queue of 100 (its cost must not grow with the queue)
//   leasing runs with branches  vs  leasing as many plain jobs (cooldown branches waiting in the queue)
//   ingest from 16 gRPC streams vs  plain batched SQLite inserts of the same rows
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <thread>

#include "bench/ingest_workload.h"
#include "core/metric_names.h"
#include "core/sweep/config_hash.h"
#include "tests/service/in_process_coordinator.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace gammalab;

// 16 concurrent streams: all of them come from one address here, and the coordinator lets one client address
// (one worker machine) hold at most limits::kMaxMetricStreamsPerClient = 16 open.
constexpr int kStreams = 16;
constexpr int kMessagesPerStream = 100;
constexpr int kPointsPerMessage = 100;
constexpr int kLeases = 2000;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

void print_latency(const char* what, std::vector<double>& us) {
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (double v : us) sum += v;
  std::printf("%-34s mean %8.1f us   p50 %8.1f us   p99 %8.1f us\n", what, sum / double(us.size()), us[us.size() / 2],
              us[us.size() * 99 / 100]);
}

}  // namespace

int main() {
  spdlog::set_level(spdlog::level::warn);  // the coordinator logs every lease at info
  // ---- lease latency
  std::vector<double> direct_us, grpc_us;
  {
    const auto dir = testing::temp_db("direct").parent_path();
    Store store((dir / "gammalab.db").string());
    store.create_sweep(testing::make_sweep("bench", kLeases), "", "", false);
    const std::string worker = store.register_worker("bench", 1, {}, "");
    for (int i = 0; i < kLeases; ++i) {
      const auto t = Clock::now();
      store.lease(worker, 30000);
      direct_us.push_back(seconds_since(t) * 1e6);
    }
    std::filesystem::remove_all(dir);
  }
  {
    testing::InProcessCoordinator c("bench");
    c.store().create_sweep(testing::make_sweep("bench", kLeases), "", "", false);
    auto stub = v1::WorkerGateway::NewStub(c.own_channel());
    const std::string worker = c.store().register_worker("bench", 1, {}, "", c.worker_token_id());
    for (int i = 0; i < kLeases; ++i) {
      v1::LeaseJobRequest request;
      request.set_worker_id(worker);
      v1::LeaseJobResponse response;
      grpc::ClientContext context;
      const auto t = Clock::now();
      stub->LeaseJob(&context, request, &response);
      grpc_us.push_back(seconds_since(t) * 1e6);
    }
  }
  std::printf("== lease latency (%d leases, pending queue of %d jobs)\n", kLeases, kLeases);
  print_latency("Store::lease (SQLite only)", direct_us);
  print_latency("LeaseJob over loopback gRPC", grpc_us);

  // ---- lease cost against the queue's length: 200 leases from queues of 100 to 30,000 pending jobs
  {
    constexpr int kQueueLeases = 200;
    std::printf("== lease cost against the queue's length (%d leases each, Store::lease directly)\n", kQueueLeases);
    double p50_shortest = 0;
    for (const int queue : {100, 1000, 10000, 30000}) {
      const auto dir = testing::temp_db("queue").parent_path();
      std::vector<double> us;
      {
        Store store((dir / "gammalab.db").string());
        store.create_sweep(testing::make_sweep("bench", queue + kQueueLeases), "", "", false);
        const std::string worker = store.register_worker("bench", 1, {}, "");
        for (int i = 0; i < kQueueLeases; ++i) {
          const auto t = Clock::now();
          if (!store.lease(worker, 30000)) {
            std::fprintf(stderr, "lease %d from a queue of %d found no job\n", i, queue);
            return 1;
          }
          us.push_back(seconds_since(t) * 1e6);
        }
      }
      std::filesystem::remove_all(dir);
      std::sort(us.begin(), us.end());
      const double p50 = us[us.size() / 2];
      if (queue == 100) p50_shortest = p50;
      char what[64];
      std::snprintf(what, sizeof what, "queue of %d pending jobs", queue);
      print_latency(what, us);
      std::printf("%-34s p50 %.2f x the queue of 100\n", "", p50 / p50_shortest);
    }
  }

  // ---- cooldown branches (docs/branches.md): leasing the runs of a sweep whose every run is followed by three
  // branches still waiting for its checkpoints, against a sweep of the same number of plain jobs. A lease walks
  // the pending jobs in order and skips a waiting branch (a check of its run's branch_point metric), so the
  // runs leased later skip more of them: the ratio shows what that costs.
  {
    constexpr int kRuns = 1000, kBranchesPerRun = 3;
    std::printf("== lease cost with waiting cooldown branches (%d runs, Store::lease directly)\n", kRuns);
    double p50_plain = 0;
    for (const bool branches : {false, true}) {
      Sweep sweep = testing::make_sweep("bench", kRuns);
      if (branches) {
        std::vector<SweepJob> jobs;
        for (std::size_t r = 0; r < std::size_t{kRuns}; ++r) {
          const std::size_t parent = jobs.size();
          jobs.push_back(sweep.jobs[r]);
          for (int b = 1; b <= kBranchesPerRun; ++b) {
            SweepJob branch = sweep.jobs[r];
            branch.name += "/D=" + std::to_string(b);
            branch.config.steps = 2 * b;
            branch.config_hash = config_hash(branch.config);
            branch.parent = parent;
            branch.branch_step = b;
            jobs[parent].branch_points.push_back(b);
            jobs.push_back(std::move(branch));
          }
        }
        sweep.jobs = std::move(jobs);
      }
      const auto dir = testing::temp_db("branches").parent_path();
      std::vector<double> us;
      {
        Store store((dir / "gammalab.db").string());
        store.create_sweep(sweep, "", "", false);
        const std::string worker = store.register_worker("bench", 1, {}, "");
        for (int i = 0; i < kRuns; ++i) {
          const auto t = Clock::now();
          const auto lease = store.lease(worker, 30000);
          us.push_back(seconds_since(t) * 1e6);
          if (!lease || !lease->job.parent_id.empty()) {
            std::fprintf(stderr, "lease %d did not find the next run\n", i);
            return 1;
          }
        }
      }
      std::filesystem::remove_all(dir);
      std::sort(us.begin(), us.end());
      const double p50 = us[us.size() / 2];
      if (!branches) p50_plain = p50;
      print_latency(branches ? "runs, each with 3 waiting branches" : "plain jobs", us);
      if (branches) std::printf("%-34s p50 %.2f x the plain sweep's\n", "", p50 / p50_plain);
    }
  }

  // ---- metric ingest: the same rows both ways
  const bench::IngestWorkload workload{kStreams, kMessagesPerStream, kPointsPerMessage};
  const std::int64_t total_points = workload.total_points();
  const Sweep ingest_sweep = workload.sweep("bench");
  const double plain_s = workload.plain_inserts_s();
  double grpc_s = 0;
  {
    testing::InProcessCoordinator c("bench");
    c.store().create_sweep(ingest_sweep, "", "", false);
    // Each stream reports for a job its worker holds, as a trainer's worker does (ingest is fenced by attempt).
    const std::string worker = c.store().register_worker("bench", kStreams, {}, "", c.worker_token_id());
    const std::map<std::string, int> attempts = workload.hold_jobs(c.store(), worker);
    if (attempts.empty()) return 1;
    grpc_s = workload.report_all_s([&](int) { return c.own_channel(); }, attempts);
    if (grpc_s < 0) return 1;
  }
  std::printf("== metric ingest (%lld points: %d streams x %d messages x %d points)\n",
              static_cast<long long>(total_points), kStreams, kMessagesPerStream, kPointsPerMessage);
  std::printf("%-34s %10.0f points/s\n", "plain batched SQLite inserts", double(total_points) / plain_s);
  std::printf("%-34s %10.0f points/s   (%.2fx of plain)\n", "ReportMetrics, 16 gRPC streams",
              double(total_points) / grpc_s, plain_s / grpc_s);
  return 0;
}
