// Not a benchmark by itself: the database that web/tools/dashboard-draw.js (`make bench`) times the dashboard over. One sweep
// per --points value given, each of --jobs finished jobs with that many train-loss points (a falling curve with
// noise and a spike every 10,000 steps, so downsampling has something to keep) and a val-loss point every
// 1,000 steps, written through the store's own ingest path (fencing, checks and metric tiles as in service).
//   bench_http_dashboard_fixture --db DIR/gammalab.db --jobs 100 --points 100000 --points 1000
// Prints one JSON line per sweep: {"sweep": id, "name": ..., "jobs": n, "points": per job}.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/metric_names.h"
#include "core/sweep/config_hash.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace {

using namespace gammalab;

constexpr std::int64_t kBatch = 20'000;       // points per add_metrics call
constexpr std::int64_t kValEvery = 1'000;     // steps between val points
constexpr std::int64_t kSpikeEvery = 10'000;  // steps between loss spikes

void fill_sweep(Store& store, const std::string& worker, int jobs, std::int64_t points) {
  Sweep spec = testing::make_sweep("draw-" + std::to_string(jobs) + "x" + std::to_string(points), jobs);
  for (auto& job : spec.jobs) {
    job.config.steps = points;
    job.config_hash = config_hash(job.config);
  }
  const std::string sweep_id = store.create_sweep(spec, "", "", false).sweep.id;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.02);
  for (int j = 0; j < jobs; ++j) {
    auto lease = store.lease(worker, 3'600'000);
    if (!lease) throw std::runtime_error("no lease for job " + std::to_string(j));
    store.start(worker, lease->job.id, lease->attempt);
    const double floor = 2.0 + 0.002 * j;  // each job its own curve
    std::vector<MetricPoint> batch;
    for (std::int64_t s = 1; s <= points; ++s) {
      double loss = floor + 3.0 / std::sqrt(double(s)) + noise(rng);
      if (s % kSpikeEvery == 0) loss += 1.5;
      batch.push_back({s, s * 4096, std::string(metric_names::kTrainLoss), loss});
      if (s % kValEvery == 0 || s == points) {
        batch.push_back({s, s * 4096, std::string(metric_names::kValLoss), floor + 3.0 / std::sqrt(double(s))});
      }
      if (std::int64_t(batch.size()) >= kBatch || s == points) {
        const auto result = store.add_metrics(lease->job.id, lease->attempt, batch);
        if (result.stored != std::int64_t(batch.size())) throw std::runtime_error("the store refused points");
        batch.clear();
      }
    }
    store.finish(worker, lease->job.id, lease->attempt, AttemptEnd::kSucceeded, "");
  }
  std::cout << R"({"sweep": ")" << sweep_id << R"(", "name": ")" << spec.name << R"(", "jobs": )" << jobs
            << R"(, "points": )" << points << "}" << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"the database of web/tools/dashboard-draw.js"};
  std::string db;
  int jobs = 100;
  std::vector<std::int64_t> points;
  app.add_option("--db", db, "SQLite file to create (must not exist)")->required();
  app.add_option("--jobs", jobs, "jobs per sweep")->check(CLI::Range(1, 100000));
  app.add_option("--points", points, "train-loss points per job; one sweep per value")
      ->required()
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{10'000'000}));
  CLI11_PARSE(app, argc, argv);
  spdlog::set_level(spdlog::level::warn);
  try {
    Store store(db);
    const std::string worker = store.register_worker("draw-fixture", jobs, {}, "");
    for (std::int64_t n : points) fill_sweep(store, worker, jobs, n);
  } catch (const std::exception& e) {
    std::cerr << "bench_http_dashboard_fixture: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
