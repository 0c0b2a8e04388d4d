#include "server/refitter.h"

#include <spdlog/spdlog.h>

#include <cmath>

#include "core/scaling/fit_runs.h"
#include "core/scaling/run_point.h"

namespace gammalab {

Refitter::Refitter(Store& store, RefitOptions options) : store_(store), options_(std::move(options)) {
  if (options_.enabled) thread_ = std::thread([this] { run(); });
}

Refitter::~Refitter() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

int Refitter::refit(const std::string& sweep_id) {
  const auto inputs = store_.fit_inputs(sweep_id);
  std::vector<std::string> job_ids;
  std::vector<RunPoint> runs;
  for (const auto& input : inputs) {
    const double loss = final_loss(input.val_loss, input.train_loss);
    if (!std::isfinite(loss)) continue;
    runs.push_back(job_run_point(job_config_from_json(nlohmann::json::parse(input.config_json)), loss,
                                 options_.group_by, input.job_name));
    job_ids.push_back(input.job_id);
  }
  const auto latest = store_.fits(sweep_id, /*latest_only=*/true);
  if (!latest.empty() && std::vector<std::string>(latest[0].job_ids().begin(), latest[0].job_ids().end()) == job_ids) {
    return 0;
  }
  FitOptions fit_options;
  fit_options.bootstrap = options_.bootstrap;
  FitReport report;
  try {
    report = fit_runs(runs, fit_options);
  } catch (const std::invalid_argument& e) {
    spdlog::debug("sweep {}: no fit yet ({})", sweep_id, e.what());
    return 0;
  }
  const int version =
      store_.add_fit(sweep_id, std::string(law_name(report.law)), options_.group_by, job_ids, to_json(report).dump());
  spdlog::info("sweep {}: scaling-law fit v{} ({} law, {} runs)", sweep_id, version, law_name(report.law), runs.size());
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
        refit(sweep);
        fitted[sweep] = jobs;
      }
    } catch (const std::exception& e) {
      spdlog::error("refit failed: {}", e.what());
    }
  }
}

}  // namespace gammalab
