#pragma once
// Runs trained elsewhere, brought into a sweep by `gammalab import` (docs/own-program.md, "Runs in"): each
// becomes a finished job whose config declares its N, D, group and seed (JobConfig::declared_params,
// declared_tokens, scale.variant, seed) and where it came from (JobConfig::imported), with its points stored as
// a job's are. Fits, comparisons, the dashboard and the report read it as any sweep.
//
// Two formats, both read here so that the CLI and the coordinator check a run alike:
//   - CSV of final losses (the columns of `gammalab fit --points`: params, tokens, loss, group, seed, label):
//     one run per row, its loss the val/loss at its last step;
//   - JSON lines of whole curves: a line {"run": {"name", "group", "seed", "params", "tokens", "source",
//     "config"}} starts a run, and the metric lines after it (core/metric.h's format) are its points.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/job_config.h"
#include "core/metric.h"

namespace gammalab {

inline constexpr std::size_t kMaxImportedRuns = 10'000;
inline constexpr std::size_t kMaxImportedPoints = 2'000'000;  // over all runs of one import (held in memory until stored)
inline constexpr std::size_t kMaxImportedNameBytes = 256;     // a run's name (a job's name)

struct ImportedRun {
  std::string name;
  JobConfig config;
  std::vector<MetricPoint> points;  // each metric's points by step
};

// `source` names the file in messages and in each run's `imported` (with the row or line). Throw
// std::invalid_argument naming the line, the field, the limit and the value; a file with any bad run imports
// nothing.
std::vector<ImportedRun> imported_runs_from_csv(std::string_view text, const std::string& source);
std::vector<ImportedRun> imported_runs_from_jsonl(std::string_view text, const std::string& source);

// What the coordinator holds an imported run to before it stores anything (it checks again what the CLI
// checked: a caller may send anything): a valid config with `imported` set and no command, a name, points
// that a job's report could carry (core/metric_check.h) with steps in [0, steps], and no metric twice at a step.
// Throws std::invalid_argument naming the run and what is wrong. Sorts each metric's points by step.
void check_imported_run(ImportedRun& run);
// Every run as check_imported_run holds it, and no name twice (a sweep's jobs have distinct names).
void check_imported_runs(std::vector<ImportedRun>& runs);

}  // namespace gammalab
