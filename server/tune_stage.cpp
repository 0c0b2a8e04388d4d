// The coordinator's end of tune stages (see server/tune_stage.h).
#include "server/tune_stage.h"

#include <spdlog/spdlog.h>

#include <cmath>
#include <limits>

#include "core/config_paths.h"
#include "core/job_stage.h"
#include "core/scaling/run_point.h"
#include "core/sweep/tune.h"
#include "core/sweep/tune_rounds.h"

namespace gammalab {

TuneStage::TuneStage(Store& store, bool background) : store_(store) {
  if (background) thread_ = std::thread([this] { run(); });
}

TuneStage::~TuneStage() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

bool TuneStage::advance(const std::string& sweep_id) {
  const auto sweep = store_.find_sweep(sweep_id);
  if (!sweep || !sweep->awaiting_main_stage) return true;
  // Woken by every store change (each metric report among them): while the sweep still has only its tune jobs,
  // its job counts say whether they have all ended, without reading any curve.
  for (const auto& [state, count] : sweep->job_counts) {
    const auto known = parse_job_state(state);
    if (count > 0 && (!known || !is_terminal(*known))) return false;
  }
  std::vector<TuneRun> runs;
  for (const auto& job : store_.stage_jobs(sweep_id, job_stage::kTune)) {
    if (!is_terminal(job.state)) return false;  // one started between the two reads
    TuneRun run{job_config_from_json(nlohmann::json::parse(job.losses.config_json)),
                std::numeric_limits<double>::quiet_NaN(), job.losses.job_name};
    // A failed or cancelled tune run counts as a run without a final loss: its value is not picked.
    if (job.state == JobState::kSucceeded) run.loss = final_loss(job.losses.val_loss, run.config.steps);
    runs.push_back(std::move(run));
  }
  SweepOptions options;
  options.preset_dir = model_preset_dir();
  const SweepStages stages = expand_stages(sweep->source_yaml, sweep->file_name, options);
  // Widen or refine the grid first (tune.extend, tune.refine); the stage picks once no round adds a run.
  const Sweep round = next_tune_round(stages, runs);
  if (!round.jobs.empty()) {
    const int added = store_.add_tune_round(sweep_id, round);
    if (added > 0) {
      spdlog::info("sweep {}: tune stage widened or refined its grid: {} more tune jobs", sweep_id, added);
      return false;
    }
  }
  TunePicks picks = pick_tuned(stages, runs);
  mark_tune_origins(stages, picks);
  const std::string report = to_json(picks).dump();
  if (!picks.ok()) {
    store_.refuse_main_stage(sweep_id, report, picks.problems());
    spdlog::warn("sweep {}: tune stage ended without a pick; no main stage:\n{}", sweep_id, picks.problems());
    return true;
  }
  SubmitResult added;
  if (store_.add_main_stage(sweep_id, apply_picks(stages, picks), report, &added)) {
    spdlog::info("sweep {}: tune stage picked its values; main stage: {} jobs ({} reused)", sweep_id,
                 added.jobs_created + added.jobs_reused, added.jobs_reused);
  }
  return true;
}

void TuneStage::run() {
  std::uint64_t seen = 0;  // 0: look once at start-up, for sweeps whose tune stage ended while we were down
  while (!stop_) {
    try {
      for (const auto& sweep : store_.sweeps_awaiting_main()) {
        try {
          advance(sweep);
        } catch (const std::exception& e) {
          store_.refuse_main_stage(sweep, "", std::string("tune stage: ") + e.what());
          spdlog::error("sweep {}: tune stage failed: {}", sweep, e.what());
        }
      }
    } catch (const std::exception& e) {
      spdlog::error("tune stages: {}", e.what());
    }
    seen = store_.wait_for_change(seen, std::chrono::milliseconds(500));
  }
}

}  // namespace gammalab
