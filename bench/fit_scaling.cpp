// Scaling-law fit costs on a 240-run synthetic Chinchilla sweep (16 sizes x 15 token counts, 1% noise):
// the CSV path of `gammalab fit --points` with the full 4,500-start grid, and the 1,000-resample bootstrap
// with warm starts, on 2 threads. Figures are printed, never asserted (see docs/perf.md).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/scaling/csv_points.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/fit.h"
#include "core/scaling/objective.h"

namespace {

using namespace gammalab;

// E, A, alpha, B, beta of Hoffmann et al. (2022).
double chinchilla_loss(double n, double d) { return 1.69 + 406.4 * std::pow(n, -0.34) + 410.7 * std::pow(d, -0.28); }

std::string synthetic_csv() {
  std::mt19937_64 rng(2024);
  std::normal_distribution<double> z(0.0, 0.01);
  std::ostringstream csv;
  csv << "params,tokens,loss,group\n";
  for (int i = 0; i < 16; ++i) {
    const double n = 2e7 * std::pow(100.0, i / 15.0);
    for (int j = 0; j < 15; ++j) {
      const double d = 2e8 * std::pow(1000.0, j / 14.0);
      csv << n << "," << d << "," << chinchilla_loss(n, d) * std::exp(z(rng)) << ",baseline\n";
    }
  }
  return csv.str();
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void BM_ObjectiveAndGradient240(benchmark::State& state) {
  const auto runs = parse_points_csv(synthetic_csv(), "synthetic");
  const LseDesign design = law_design(LawKind::chinchilla, runs);
  HuberLseObjective objective(design, 1e-3);
  const double theta[5] = {0.5, 0.34, 0.28, 6.0, 6.0};
  double cost = 0.0, grad[5];
  for (auto _ : state) {
    objective.Evaluate(theta, &cost, grad);
    benchmark::DoNotOptimize(cost);
  }
  state.counters["points"] = static_cast<double>(runs.size());
}
BENCHMARK(BM_ObjectiveAndGradient240);

// What `gammalab fit --points FILE.csv --bootstrap 0` does: parse, full grid on 2 threads.
void BM_FitCsvFullGrid4500(benchmark::State& state) {
  quiet_solver_logging();
  const std::string csv = synthetic_csv();
  FitOptions options;
  options.law = LawKind::chinchilla;
  options.bootstrap = 0;
  options.settings.threads = 2;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const FitReport report = fit_runs(parse_points_csv(csv, "synthetic"), options);
    const double secs = seconds_since(start);
    const LawFit& fit = report.groups.at(0).fit;
    state.counters["starts"] = fit.starts;
    state.counters["converged_starts"] = fit.starts_converged;
    state.counters["us_per_start"] = 1e6 * secs * options.settings.threads / fit.starts;
    std::printf("full grid: %d runs, %d starts (%d converged), best %s, %.2f s on %d threads\n", fit.points, fit.starts,
                fit.starts_converged, fit.termination.c_str(), secs, options.settings.threads);
  }
}
BENCHMARK(BM_FitCsvFullGrid4500)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// The full fit plus 1,000 warm-started bootstrap refits (paired over model sizes), 2 threads.
void BM_Bootstrap1000(benchmark::State& state) {
  quiet_solver_logging();
  const auto runs = parse_points_csv(synthetic_csv(), "synthetic");
  FitOptions options;
  options.law = LawKind::chinchilla;
  options.bootstrap = 1000;
  options.seed = 1;
  options.settings.threads = 2;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const FitReport report = fit_runs(runs, options);
    const double secs = seconds_since(start);
    state.counters["resamples_used"] = report.bootstrap_used;
    std::printf("bootstrap: %d/%d resamples, %zu warm starts each, %.2f s total on %d threads\n", report.bootstrap_used,
                report.bootstrap_requested, report.groups[0].fit.best_optima.size(), secs, options.settings.threads);
    for (const auto& e : report.groups[0].parameters) {
      std::printf("  %-6s %.4g [%.4g, %.4g]\n", e.name.c_str(), e.value, e.lo, e.hi);
    }
  }
}
BENCHMARK(BM_Bootstrap1000)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

// Why warm starts: one resample refit from the full grid versus from the best optima of the full fit.
void BM_RefitFullGridVsWarm(benchmark::State& state) {
  quiet_solver_logging();
  const auto runs = parse_points_csv(synthetic_csv(), "synthetic");
  FitSettings settings;
  settings.threads = 1;
  const LawFit full = fit_law(LawKind::chinchilla, runs, settings);
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    const LawFit grid = fit_law(LawKind::chinchilla, runs, settings);
    const double grid_secs = seconds_since(start);
    start = std::chrono::steady_clock::now();
    const LawFit warm = fit_law_from(LawKind::chinchilla, runs, settings, full.best_optima, 1);
    const double warm_secs = seconds_since(start);
    double max_diff = 0.0;
    for (std::size_t i = 0; i < grid.theta.size(); ++i) max_diff = std::max(max_diff, std::abs(grid.theta[i] - warm.theta[i]));
    std::printf("one refit, 1 thread: full grid %.3f s, warm (%zu starts) %.4f s, ratio %.0fx, max |theta diff| %.2g\n",
                grid_secs, full.best_optima.size(), warm_secs, grid_secs / warm_secs, max_diff);
  }
}
BENCHMARK(BM_RefitFullGridVsWarm)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
