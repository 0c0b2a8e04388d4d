#pragma once
// The JSON shapes the dashboard's page code reads (web/series.js): one home for the HTTP API
// (server/http_api.cpp) and for the static report (`gammalab report`, cli/client/report_data.cpp), so a chart
// drawn from either reads the same fields.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/metric.h"
#include "core/scaling/job_points.h"
#include "gammalab/v1/gammalab.pb.h"

namespace gammalab {

// A job as its proto JSON, with the state in core's spelling ("running") like every other state the page reads.
nlohmann::ordered_json dashboard_job(const v1::Job& job);
// The same as text, without a tree: the proto's JSON with its state's value replaced. A sweep's job list is
// these joined (parsing each job's JSON into a tree to change one field was most of /jobs' time, docs/perf.md).
std::string dashboard_job_text(const v1::Job& job);
// A job state as the dashboard names it (core/job_state.h's name: "running").
std::string dashboard_state(v1::JobState state);

// What the page would otherwise spell itself: the job states with their flags, in the order of a job's life,
// the state whose jobs the fits read and the failed state, the metric names (core/metric_names.h), and
// `gammalab fit`'s default resample count (core/scaling/fit_options.h).
nlohmann::json dashboard_meta();

// Columnar per metric name: {"train/loss": {"step": [...], "tokens": [...], "value": [...]}} (what uPlot wants);
// NaN values are null. `points` come ordered by (name, step), as Store::metrics returns them; each name's run
// is downsampled to `buckets` buckets (core/metric_downsample.h) when that is not 0.
nlohmann::json metric_columns(const std::vector<MetricPoint>& points, std::size_t buckets = 0);

// What a run's config says of its size, for its row: the same for every job of one config, and a job's config
// never changes, so a server keeps it per config hash (server/run_sizes.h) rather than parse each config again
// on every read of a sweep's runs.
struct RunSize {
  std::string variant;
  // The model size a run is counted under, across variants (the study table's rows): its preset's name; else a
  // declared N's ("N 6.29M": a program of the user's own, an imported run); else its dimensions ("custom 8x512",
  // layers x width). One label for every variant of a size, which differ a little in their counted N.
  std::string preset;
  std::int64_t params = 0;         // N as the fits count it (core/scaling/run_point.h)
  std::int64_t total_params = 0;   // every parameter, embeddings included
  double tokens = 0;               // the run's training tokens
  double compute = 0;              // its training FLOPs
  std::string config_error;        // not empty: a config this build cannot read, and the fields above are unset
  std::optional<std::int64_t> total_steps;  // the config's steps, once it was read: a run without has no final loss
};
RunSize run_size(const std::string& config_json);

// One run row: name, state, stage ("tune" or "main"), variant, preset, params, tokens, compute (from `size`, the
// size of the job's config) and the final losses (core/scaling/run_point.h) of `job`, whose stored loss curves
// are `losses`. A config this build cannot read gives a row without a size, with config_error.
nlohmann::json dashboard_run(const v1::Job& job, const JobLosses& losses, const RunSize& size);
// The same, reading the size from the job's config.
nlohmann::json dashboard_run(const v1::Job& job, const JobLosses& losses);

// A sweep's newest fit version, {"version": V, "fits": [Fit, ...]} with one Fit message per law, in proto JSON
// (report_json holds each law's report); `fits` are that version's, not empty.
nlohmann::json dashboard_latest_fits(const std::vector<v1::Fit>& fits);

}  // namespace gammalab
