// Benchmark (not a test): one job's 1,000,000-point loss curve over the dashboard's HTTP API (a real HttpApi on
// loopback over a real SQLite store), the full series beside the same series downsampled for a 1,000-pixel chart
// (max_points=4000: 1,000 buckets of first, last, lowest and highest point). Prints the ratio of the two.
#include <benchmark/benchmark.h>
#include <httplib.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/metric_names.h"
#include "core/sweep/config_hash.h"
#include "server/http_api.h"
#include "tests/service/test_sweeps.h"

namespace {

using namespace gammalab;

constexpr std::int64_t kPoints = 1'000'000;
constexpr int kPixels = 1000;

// The store, the API and a client, made once for every benchmark below.
struct Fixture {
  std::filesystem::path db = testing::temp_db("bench-http");
  std::unique_ptr<Store> store = std::make_unique<Store>(db.string());
  ServerOptions options;
  std::unique_ptr<HttpApi> api;
  std::unique_ptr<httplib::Client> client;
  std::string path;

  Fixture() {
    Sweep spec = testing::make_sweep("bench", 1);
    spec.jobs[0].config.steps = kPoints;
    spec.jobs[0].config_hash = config_hash(spec.jobs[0].config);
    store->create_sweep(spec, "", "", false);
    const std::string worker = store->register_worker("bench", 1, {}, "");
    auto lease = store->lease(worker, 600'000);
    if (!lease) throw std::runtime_error("no lease");
    store->start(worker, lease->job.id, lease->attempt);
    std::vector<MetricPoint> batch;
    for (std::int64_t s = 1; s <= kPoints; ++s) {
      batch.push_back({s, s * 4096, std::string(metric_names::kTrainLoss), 2.0 + 3.0 / std::sqrt(double(s))});
      if (batch.size() == 10'000 || s == kPoints) {
        if (store->add_metrics(lease->job.id, lease->attempt, batch).stored != std::int64_t(batch.size())) {
          throw std::runtime_error("the store refused points");
        }
        batch.clear();
      }
    }
    options.http_address = "127.0.0.1:0";
    api = std::make_unique<HttpApi>(*store, options);
    client = std::make_unique<httplib::Client>("127.0.0.1", api->port());
    client->set_read_timeout(120, 0);
    path = "/api/jobs/" + lease->job.id + "/metrics?names=" + std::string(metric_names::kTrainLoss);
  }
  ~Fixture() {
    client.reset();
    api.reset();
    store.reset();
    std::filesystem::remove_all(db.parent_path());
  }

  // One GET; returns the number of points in the answer's series (counted from the body's step column).
  std::size_t get(const std::string& query) {
    auto res = client->Get((path + query).c_str());
    if (!res || res->status != 200) throw std::runtime_error("GET " + path + query + " failed");
    std::size_t commas = 0;
    const auto steps = res->body.find("\"step\":[");
    const auto end = res->body.find(']', steps);
    for (auto i = steps; i < end; ++i) commas += res->body[i] == ',';
    return commas + 1;
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

double full_seconds = 0, downsampled_seconds = 0;

void run(benchmark::State& state, const std::string& query, double& seconds) {
  Fixture& f = fixture();
  std::size_t points = 0;
  for (auto _ : state) {
    const auto t = std::chrono::steady_clock::now();
    points = f.get(query);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    state.SetIterationTime(seconds);
  }
  state.counters["points"] = double(points);
}

void BM_FullSeries1M(benchmark::State& state) { run(state, "", full_seconds); }
BENCHMARK(BM_FullSeries1M)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_Downsampled1MFor1000Pixels(benchmark::State& state) {
  run(state, "&max_points=" + std::to_string(4 * kPixels), downsampled_seconds);
}
BENCHMARK(BM_Downsampled1MFor1000Pixels)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (full_seconds > 0 && downsampled_seconds > 0) {
    std::printf("1,000,000 points for a %d-pixel chart: downsampled / full series = %.4f (%.1f ms / %.1f ms; aim <= 0.1)\n",
                kPixels, downsampled_seconds / full_seconds, 1000 * downsampled_seconds, 1000 * full_seconds);
  }
  return 0;
}
