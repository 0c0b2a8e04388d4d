// Benchmark (not a test): the coordinator under load, each figure beside a reference measured in the same run:
//   LeaseJob with 200 workers and 8 dashboard readers  vs  the same 200 workers with no readers
//   GET /api/sweeps/ID/runs with those workers leasing  vs  the same request on an idle coordinator
//   (both for sweeps of 1,000 and 10,000 jobs)
//   Store::lease from a queue of 1,000 .. 30,000 jobs    vs  from a queue of 100
//   a watch round of a sweep of 1,000 .. 30,000 jobs     vs  one of a sweep of 100 (what a round reads when
//                                                             one job changed since the last)
//   ingest from 32 gRPC streams                          vs  plain batched SQLite inserts of the same rows
// The workers and readers are threads of this process talking to the coordinator over loopback TCP, so the
// machine's cores are shared by both sides: the ratios, not the absolute figures, are what carries elsewhere.
#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <spdlog/spdlog.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <semaphore>
#include <string>
#include <thread>

#include "bench/ingest_workload.h"
#include "core/metric_names.h"
#include "core/sweep/config_hash.h"
#include "server/coordinator/coordinator.h"
#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace gammalab;

constexpr int kWorkers = 200;
constexpr int kReaders = 8;
constexpr int kCyclesPerWorker = 5;    // leases each worker asks for in one phase
constexpr int kSeedRuns = 50;          // distinct finished runs whose curves the /runs sweep's jobs reuse
constexpr int kSeedTrainPoints = 200;  // train-loss points of each seed run (and a val point every 50 steps)
constexpr int kReportPoints = 20;      // points a worker reports for each job it leases
constexpr std::int64_t kJobSteps = 1000;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

struct Latency {
  double p50 = 0, p99 = 0;
};

Latency latency_ms(std::vector<double> ms) {
  if (ms.empty()) return {};
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)]};
}

void print_row(const char* what, const Latency& l, const Latency& reference, std::size_t samples) {
  std::printf("  %-46s p50 %8.2f ms  p99 %8.2f ms  (%zu)   p50 %.2fx  p99 %.2fx\n", what, l.p50, l.p99, samples,
              l.p50 / reference.p50, l.p99 / reference.p99);
}

Sweep sweep_of(const std::string& name, int jobs, std::int64_t steps) {
  Sweep sweep = testing::make_sweep(name, jobs);
  for (auto& job : sweep.jobs) {
    job.config.steps = steps;
    job.config_hash = config_hash(job.config);
  }
  return sweep;
}

// The sweep /runs reads: `jobs` jobs, the first half succeeded with the curves of kSeedRuns finished runs
// (stored by reuse, in the submit's transaction: fast to build), the rest pending.
std::string runs_sweep(Store& store, int jobs) {
  Sweep seeds = sweep_of("seeds", kSeedRuns, kSeedTrainPoints);
  store.create_sweep(seeds, "", "", false);
  const std::string worker = store.register_worker("seeder", kSeedRuns, {}, "");
  for (int r = 0; r < kSeedRuns; ++r) {
    auto lease = store.lease(worker, 3'600'000);
    store.start(worker, lease->job.id, lease->attempt);
    std::vector<MetricPoint> points;
    for (std::int64_t s = 1; s <= kSeedTrainPoints; ++s) {
      const double loss = 2.0 + 0.01 * r + 3.0 / double(s);
      points.push_back({s, s * 4096, std::string(metric_names::kTrainLoss), loss});
      if (s % 50 == 0) points.push_back({s, s * 4096, std::string(metric_names::kValLoss), loss + 0.05});
    }
    store.add_metrics(lease->job.id, lease->attempt, points);
    store.finish(worker, lease->job.id, lease->attempt, AttemptEnd::kSucceeded, "");
  }
  Sweep sweep = sweep_of("runs", jobs, kJobSteps);
  for (int j = 0; j < jobs / 2; ++j) {
    sweep.jobs[std::size_t(j)].config = seeds.jobs[std::size_t(j % kSeedRuns)].config;
    sweep.jobs[std::size_t(j)].config_hash = seeds.jobs[std::size_t(j % kSeedRuns)].config_hash;
  }
  return store.create_sweep(sweep, "", "", false).sweep.id;
}

// One simulated worker: lease, start, report kReportPoints points on one stream, finish, pause; `cycles` times.
// One client address may hold 16 open metric streams (limits::kMaxMetricStreamsPerClient): `streams` keeps the
// workers, which all come from 127.0.0.1 here, within it, as 200 machines would be without it.
void simulated_worker(testing::InProcessCoordinator& c, const std::string& worker, int cycles, unsigned seed,
                      std::counting_semaphore<16>& streams, std::vector<double>& lease_ms) {
  auto stub = v1::WorkerGateway::NewStub(c.own_channel());
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pause_ms(500, 1500);
  // Connected and spread out before the first timed lease, as workers that have been running a while are.
  {
    v1::HeartbeatRequest beat;
    beat.set_worker_id(worker);
    v1::HeartbeatResponse response;
    grpc::ClientContext context;
    stub->Heartbeat(&context, beat, &response);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng) - 500));
  for (int i = 0; i < cycles; ++i) {
    v1::LeaseJobRequest lease_request;
    lease_request.set_worker_id(worker);
    v1::LeaseJobResponse lease;
    {
      grpc::ClientContext context;
      const auto t = Clock::now();
      const grpc::Status status = stub->LeaseJob(&context, lease_request, &lease);
      lease_ms.push_back(seconds_since(t) * 1e3);
      if (!status.ok()) std::fprintf(stderr, "LeaseJob: %s\n", status.error_message().c_str());
    }
    if (lease.has_job()) {
      {
        v1::StartJobRequest start;
        start.set_worker_id(worker);
        start.set_job_id(lease.job().id());
        start.set_attempt(lease.attempt());
        v1::StartJobResponse response;
        grpc::ClientContext context;
        stub->StartJob(&context, start, &response);
      }
      {
        streams.acquire();
        v1::ReportMetricsRequest report;
        report.set_job_id(lease.job().id());
        report.set_attempt(lease.attempt());
        for (int s = 1; s <= kReportPoints; ++s) {
          auto* point = report.add_points();
          point->set_step(s);
          point->set_tokens(s * 4096);
          point->set_name(std::string(metric_names::kTrainLoss));
          point->set_value(3.0 / s);
        }
        v1::ReportMetricsResponse response;
        grpc::ClientContext context;
        auto writer = stub->ReportMetrics(&context, &response);
        writer->Write(report);
        writer->WritesDone();
        writer->Finish();
        streams.release();
      }
      v1::FinishJobRequest finish;
      finish.set_worker_id(worker);
      finish.set_job_id(lease.job().id());
      finish.set_attempt(lease.attempt());
      finish.set_outcome(v1::JOB_OUTCOME_SUCCEEDED);
      v1::FinishJobResponse response;
      grpc::ClientContext context;
      stub->FinishJob(&context, finish, &response);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(pause_ms(rng)));
  }
}

// The workers' lease latencies of one phase, with `readers` dashboard readers asking for /runs until the
// workers are done (their latencies into runs_ms).
std::vector<double> load_phase(testing::InProcessCoordinator& c, const std::vector<std::string>& workers, int port,
                               const std::string& runs_path, int readers, std::vector<double>& runs_ms) {
  std::counting_semaphore<16> streams(16);
  std::vector<std::vector<double>> per_worker(workers.size());
  std::atomic<bool> done{false};
  std::vector<std::vector<double>> per_reader(static_cast<std::size_t>(readers));
  std::vector<std::thread> readers_threads;
  for (int r = 0; r < readers; ++r) {
    readers_threads.emplace_back([&, r] {
      httplib::Client client("127.0.0.1", port);
      client.set_read_timeout(120, 0);
      while (!done) {
        const auto t = Clock::now();
        auto res = client.Get(runs_path.c_str());
        if (!res || res->status != 200) {
          std::fprintf(stderr, "GET %s: %s\n", runs_path.c_str(),
                       res ? std::to_string(res->status).c_str() : httplib::to_string(res.error()).c_str());
          continue;
        }
        per_reader[std::size_t(r)].push_back(seconds_since(t) * 1e3);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a dashboard refetching on change
      }
    });
  }
  std::vector<std::thread> threads;
  for (std::size_t w = 0; w < workers.size(); ++w) {
    threads.emplace_back([&, w] {
      simulated_worker(c, workers[w], kCyclesPerWorker, unsigned(w + 1), streams, per_worker[w]);
    });
  }
  for (auto& t : threads) t.join();
  done = true;
  for (auto& t : readers_threads) t.join();
  std::vector<double> lease_ms;
  for (auto& v : per_worker) lease_ms.insert(lease_ms.end(), v.begin(), v.end());
  for (auto& v : per_reader) runs_ms.insert(runs_ms.end(), v.begin(), v.end());
  return lease_ms;
}

// Item: 200 workers and 8 readers on one coordinator, for a /runs sweep of `jobs` jobs.
void coordinator_under_load(int jobs) {
  testing::InProcessCoordinator c("load");
  const std::string runs_id = runs_sweep(c.store(), jobs);
  // The work the 200 workers lease: enough pending jobs for both phases besides the /runs sweep's own.
  c.store().create_sweep(sweep_of("work", 2 * kWorkers * kCyclesPerWorker, kJobSteps), "", "", false);
  ServerOptions options;
  options.http_address = "127.0.0.1:0";
  options.web_root = c.db_path().parent_path() / "web";
  options.shared_root = c.db_path().parent_path() / "shared";
  std::filesystem::create_directories(options.web_root);
  HttpApi api(c.store(), options);
  const std::string runs_path = "/api/sweeps/" + runs_id + "/runs";
  std::vector<std::string> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.push_back(c.store().register_worker("w" + std::to_string(w), 1, {}, "", c.worker_token_id()));
  }

  // /runs on an idle coordinator.
  std::vector<double> idle_runs_ms;
  {
    httplib::Client client("127.0.0.1", api.port());
    client.set_read_timeout(120, 0);
    for (int i = 0; i < 10; ++i) {
      const auto t = Clock::now();
      auto res = client.Get(runs_path.c_str());
      idle_runs_ms.push_back(seconds_since(t) * 1e3);
      if (!res || res->status != 200) std::fprintf(stderr, "GET %s failed\n", runs_path.c_str());
    }
  }
  // The store's share of it: the sweep's jobs and their loss tails, read as /runs reads them.
  std::vector<double> store_runs_ms;
  for (int i = 0; i < 10; ++i) {
    const auto t = Clock::now();
    const std::size_t runs = c.store().runs(runs_id).size();
    store_runs_ms.push_back(seconds_since(t) * 1e3);
    if (runs != std::size_t(jobs)) std::fprintf(stderr, "read %zu runs of %d\n", runs, jobs);
  }
  std::vector<double> none;
  const Latency lease_alone = latency_ms(load_phase(c, workers, api.port(), runs_path, 0, none));
  std::vector<double> runs_ms;
  const std::vector<double> lease_read = load_phase(c, workers, api.port(), runs_path, kReaders, runs_ms);
  const Latency runs_idle = latency_ms(idle_runs_ms);
  std::printf("== %d jobs in the /runs sweep, %d workers (%d leases each, 0.5-1.5 s apart)\n", jobs, kWorkers,
              kCyclesPerWorker);
  print_row("LeaseJob, no readers (reference)", lease_alone, lease_alone, lease_read.size());
  print_row("LeaseJob, 8 readers of /runs", latency_ms(lease_read), lease_alone, lease_read.size());
  print_row("/runs on an idle coordinator (reference)", runs_idle, runs_idle, idle_runs_ms.size());
  print_row("/runs, 8 readers beside the 200 workers", latency_ms(runs_ms), runs_idle, runs_ms.size());
  print_row("  of which the store's read, idle", latency_ms(store_runs_ms), runs_idle, store_runs_ms.size());
}

// A watch round of a sweep when one job changed since the last round (coordinator::Coordinator::watch_round,
// what each WatchSweep round calls), timed against the queue's length; and Store::lease from that queue.
void costs_against_queue_length() {
  constexpr int kLeases = 200, kRounds = 50;
  std::printf("== against the queue's length (Store called directly; %d leases, %d watch rounds each)\n", kLeases,
              kRounds);
  Latency lease_shortest, watch_shortest;
  for (const int queue : {100, 1000, 10000, 30000}) {
    const auto dir = testing::temp_db("queue").parent_path();
    std::vector<double> lease_ms, watch_ms;
    {
      Store store((dir / "gammalab.db").string());
      const ServerOptions options;
      coordinator::Coordinator app(store, options);
      const std::string sweep = store.create_sweep(testing::make_sweep("q", queue + kLeases + kRounds), "", "", false)
                                    .sweep.id;
      const std::string worker = store.register_worker("bench", 1, {}, "");
      for (int i = 0; i < kLeases; ++i) {
        const auto t = Clock::now();
        if (!store.lease(worker, 30000)) std::fprintf(stderr, "no lease from a queue of %d\n", queue);
        lease_ms.push_back(seconds_since(t) * 1e3);
      }
      coordinator::WatchMemory sent;
      if (!app.watch_round(sweep, sent).ok()) std::fprintf(stderr, "no first watch round\n");
      for (int i = 0; i < kRounds; ++i) {
        store.lease(worker, 30000);  // one job changed since the last round
        const auto t = Clock::now();
        const auto changes = app.watch_round(sweep, sent);
        watch_ms.push_back(seconds_since(t) * 1e3);
        if (!changes.ok() || changes->jobs.size() != 1) std::fprintf(stderr, "the watch round sent not one job\n");
      }
    }
    std::filesystem::remove_all(dir);
    const Latency lease = latency_ms(lease_ms), watch = latency_ms(watch_ms);
    if (queue == 100) lease_shortest = lease, watch_shortest = watch;
    char what[80];
    std::snprintf(what, sizeof what, "lease, queue of %d pending", queue);
    print_row(what, lease, lease_shortest, lease_ms.size());
    std::snprintf(what, sizeof what, "watch round, sweep of %d jobs", queue + kLeases + kRounds);
    print_row(what, watch, watch_shortest, watch_ms.size());
  }
}

// 32 streams: 16 from 127.0.0.1 and 16 from ::1, as two worker machines (one address may hold 16 open).
constexpr int kStreams = 32;
constexpr int kMessagesPerStream = 50;
constexpr int kPointsPerMessage = 100;
constexpr bench::IngestWorkload kIngest{kStreams, kMessagesPerStream, kPointsPerMessage};

// The worker gateway listening on 127.0.0.1 and on ::1, for two client addresses.
double grpc_ingest_s() {
  const auto path = testing::temp_db("ingest");
  double seconds = -1;
  {
    Store store(path.string());
    const auto shared_tokens = std::make_shared<Tokens>(path.string());  // shared with the token check
    Tokens& tokens = *shared_tokens;
    ClientSecurity security;
    security.gateway_token = tokens.create(Role::kWorker, "bench worker");
    ServerOptions options;
    options.database = path.string();
    options.shared_root = path.parent_path() / "shared";
    WorkerGatewayService gateway(store, options);
    int port_v4 = 0, port_v6 = 0;
    grpc::ServerBuilder builder;
    const auto credentials = gammalab::grpc_server_credentials(options, shared_tokens);
    builder.AddListeningPort("127.0.0.1:0", credentials, &port_v4);
    builder.AddListeningPort("[::1]:0", credentials, &port_v6);
    builder.RegisterService(&gateway);
    auto server = builder.BuildAndStart();
    if (!server || port_v4 == 0 || port_v6 == 0) {
      std::fprintf(stderr, "could not listen on 127.0.0.1 and ::1\n");
      return -1;
    }
    store.create_sweep(kIngest.sweep("ingest"), "", "", false);
    const std::string worker = store.register_worker("bench", kStreams, {}, "", tokens.list().back().id);
    const std::map<std::string, int> attempts = kIngest.hold_jobs(store, worker);
    if (!attempts.empty()) {
      seconds = kIngest.report_all_s(
          [&](int s) {
            grpc::ChannelArguments args;
            args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
            const std::string address =
                s % 2 == 0 ? "127.0.0.1:" + std::to_string(port_v4) : "[::1]:" + std::to_string(port_v6);
            return open_channel(address, security, args);
          },
          attempts);
    }
    server->Shutdown();
  }
  std::filesystem::remove_all(path.parent_path());
  return seconds;
}

void ingest_against_plain_inserts() {
  const double plain_s = kIngest.plain_inserts_s(), grpc_s = grpc_ingest_s();
  const double points = double(kIngest.total_points());
  std::printf("== metric ingest (%.0f points: %d streams x %d messages x %d points)\n", points, kStreams,
              kMessagesPerStream, kPointsPerMessage);
  std::printf("  %-46s %10.0f points/s\n", "plain batched SQLite inserts (reference)", points / plain_s);
  if (grpc_s > 0) {
    std::printf("  %-46s %10.0f points/s   (%.2fx of plain)\n", "ReportMetrics, 32 gRPC streams", points / grpc_s,
                plain_s / grpc_s);
  }
}

}  // namespace

// `--only load|queue|ingest` runs one section: a profile of one path without the others' samples.
int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);  // the coordinator logs every lease at info
  const std::string only = argc == 3 && std::string(argv[1]) == "--only" ? argv[2] : "";
  if (argc != 1 && (only != "load" && only != "queue" && only != "ingest")) {
    std::fprintf(stderr, "usage: %s [--only load|queue|ingest]\n", argv[0]);
    return 2;
  }
  if (only.empty() || only == "load") {
    for (const int jobs : {1000, 10000}) coordinator_under_load(jobs);
  }
  if (only.empty() || only == "queue") costs_against_queue_length();
  if (only.empty() || only == "ingest") ingest_against_plain_inserts();
  return 0;
}
