// The coordinator's background refits of each sweep's scaling law (see server/refitter.h).
#include "server/refitter.h"

#include <spdlog/spdlog.h>

#include "core/scaling/fit_runs.h"
#include "core/job_stage.h"
#include "core/scaling/job_points.h"
#include "server/prometheus_metrics.h"

namespace gammalab {

Refitter::Refitter(Store& store, RefitOptions options) : store_(store), options_(std::move(options)) {
  if (options_.enabled) thread_ = std::thread([this] { run(); });
}

Refitter::~Refitter() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

int Refitter::refit(const std::string& sweep_id) {
  const std::vector<Store::FitInput> main = store_.fit_inputs(sweep_id);
  const JobPoints points = job_points(main, options_.group_by);
  const auto latest = store_.fits(sweep_id, /*latest_only=*/true);
  if (!latest.empty() && latest[0].job_ids == points.job_ids) return 0;
  FitOptions fit_options;
  fit_options.bootstrap = options_.bootstrap;
  // The tune stage's runs at the pick are checked against the main seeds, never fitted.
  fit_options.tune_runs_at_pick =
      tune_runs_at_pick(main, store_.fit_inputs(sweep_id, job_stage::kTune), options_.group_by);
  if (auto missing = not_enough_sizes(points.runs, fit_options)) {
    spdlog::debug("sweep {}: no fit yet ({})", sweep_id, *missing);
    return 0;
  }
  // Anything failing from here is an error: run() logs it.
  std::vector<Store::LawReport> reports;
  const FitReport report = fit_runs(points.runs, fit_options);
  reports.push_back({std::string(law_name(report.law)), to_json(report).dump()});
  std::string laws(law_name(report.law));
  if (report.law == LawKind::n) {
    // Tokens tied to parameters (the shipped studies): L(N) has no compute frontier, so the multipliers come
    // from L(C) on the same runs, stored in the same version.
    fit_options.law = LawKind::c;
    if (auto missing = not_enough_sizes(points.runs, fit_options)) {
      spdlog::info("sweep {}: no L(C) fit ({})", sweep_id, *missing);
    } else {
      reports.push_back({"c", to_json(fit_runs(points.runs, fit_options)).dump()});
      laws += " and c";
    }
  }
  const int version = store_.add_fit(sweep_id, options_.group_by, points.job_ids, reports);
  spdlog::info("sweep {}: scaling-law fit v{} (law {}, {} runs)", sweep_id, version, laws, points.runs.size());
  return version;
}

void Refitter::run() {
  std::map<std::string, std::vector<std::string>> fitted;  // sweep -> succeeded jobs at its last refit
  std::uint64_t seen = store_.version();
  while (!stop_) {
    seen = store_.wait_for_change(seen, std::chrono::milliseconds(500));
    if (stop_) break;
    try {
      auto current = store_.succeeded_jobs_by_sweep();
      for (auto& [sweep, jobs] : current) {
        if (fitted[sweep] == jobs) continue;
        // Let a burst of finishing jobs settle, then fit once.
        for (int waited = 0; waited < options_.settle_ms && !stop_; waited += 100) {
          std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        // Tried once per set of jobs: a sweep whose fit fails waits for its jobs to change, not the others.
        fitted[sweep] = jobs;
        const auto started = std::chrono::steady_clock::now();
        try {
          if (refit(sweep) > 0)
            CoordinatorMetrics::instance().fit_finished(std::chrono::steady_clock::now() - started, true);
        } catch (const std::exception& e) {
          CoordinatorMetrics::instance().fit_finished(std::chrono::steady_clock::now() - started, false);
          spdlog::error("sweep {}: refit failed: {}", sweep, e.what());
        }
      }
    } catch (const std::exception& e) {
      spdlog::error("refit failed: {}", e.what());
    }
  }
}

}  // namespace gammalab
