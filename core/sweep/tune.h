#pragma once
// The tune stage's decision: from the final losses of the tune runs, the best value of the tuned fields per
// group (docs/sweeps.md, "Tune stage"), and the main stage with those values set.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/job_config.h"
#include "core/sweep/expanded.h"
#include "core/sweep/tune_rule.h"

namespace gammalab {

// One finished tune run: its resolved config and final loss (NaN when it failed, was cancelled or has none).
struct TuneRun {
  JobConfig config;
  double loss = 0.0;
  std::string name;  // the job's, for the runs a further round copies from it (core/sweep/tune_rounds.h)
};

// One combination of tuned values within a group, over its runs (seeds, and the values of axes not in `per`).
struct TuneTrial {
  nlohmann::json values = nlohmann::json::object();  // tuned field -> value
  int runs = 0;
  int failed = 0;          // runs without a finite final loss
  double mean_loss = 0.0;  // over the runs; +inf when any run failed (a value that diverges is not a pick)
  std::vector<JobConfig> configs;  // the runs' configs, for carry expressions (not in the JSON form)
  std::vector<double> losses;      // each run's final loss, in the order of `configs` (not in the JSON form)
  std::string origin;              // "" on the grid as written, "extended" or "refined" (mark_tune_origins)
};

struct TuneGroup {
  nlohmann::json key = nlohmann::json::object();  // per field -> value
  std::vector<TuneTrial> trials;                  // by their values
  int best = -1;                                  // index into trials; -1 when there is no pick
  std::string problem;                            // why there is no pick (edge of the grid, every run failed)
  // How sure the pick is: the share of kPickResamples bootstrap resamples of the group's tune seeds (the same
  // seeds drawn for every value: a seed's runs share their data order) in which the pick still has the lowest
  // mean. NaN with fewer than two seeds, or without a pick.
  double pick_share = std::nan("");
  int seeds = 0;  // the group's distinct tune seeds
};
inline constexpr int kPickResamples = 1000;

struct TunePicks {
  std::vector<TuneGroup> groups;
  std::vector<TuneRule> rules;  // with tune.size_rule: one per family (core/sweep/tune_rule.h)
  bool ok() const;
  std::string problems() const;  // one line per group without a pick
};

// "scale.variant=baseline, model.preset=tiny-0.03m"
std::string tune_key_text(const nlohmann::json& key);

// The value of every `per` field of a config.
nlohmann::json tune_key(const JobConfig& config, const std::vector<std::string>& per);

// Groups the runs by their `per` fields, averages each combination of tuned values, and picks the lowest
// mean. A best value at the smallest or largest value of a numeric tuned field is refused ("widen the grid")
// unless stages.allow_edge. The result does not depend on the order of the runs: trials are sorted by their
// values (the first of equal means wins), a trial's runs by seed.
TunePicks pick_tuned(const SweepStages& stages, const std::vector<TuneRun>& runs);

// The group's pick is the smallest or largest value of a numeric tuned field (kept under tune.allow_edge): the
// optimum may lie beyond the grid.
bool pick_at_grid_edge(const TuneGroup& group);

// A main job whose `per` fields no tune run shares, or nullopt: checked before any job runs.
std::optional<std::string> uncovered_main_job(const SweepStages& stages);

// With tune.size_rule, each job's tuned field is instead its family's rule at the job's own N.
// The main stage with each job's tuned fields set to its group's pick, or to the value of the field's carry
// expression (`tuned.F`: field F of the pick's tune runs, which must agree on it; `F`: the main job's own)
// (configs validated, hashes recomputed). Throws std::invalid_argument when a group has no pick or an
// expression cannot be evaluated.
Sweep apply_picks(const SweepStages& stages, const TunePicks& picks);

nlohmann::json to_json(const TunePicks& picks);
TunePicks tune_picks_from_json(const nlohmann::json& json);  // throws nlohmann::json::exception

}  // namespace gammalab
