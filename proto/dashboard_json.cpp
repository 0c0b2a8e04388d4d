// The dashboard's JSON shapes (proto/dashboard_json.h).
#include "proto/dashboard_json.h"

#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>

#include "core/job_config.h"
#include "core/job_state.h"
#include "core/metric_downsample.h"
#include "core/metric_names.h"
#include "core/number_format.h"
#include "core/param_count.h"
#include "core/scaling/fit_options.h"
#include "core/scaling/run_point.h"
#include "proto/convert.h"
#include "proto/proto_json.h"

namespace gammalab {

namespace {

using nlohmann::json;

// A finite number, or null (JSON has no NaN).
json number_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

}  // namespace

std::string dashboard_state(v1::JobState state) { return std::string(job_state_name(from_proto(state).value())); }

std::string dashboard_job_text(const v1::Job& job) {
  std::string text = proto_to_json(job);
  // The message's own "state" member: inside a string value every quote is escaped, so this text occurs once.
  const std::string proto_state = "\"state\":\"" + v1::JobState_Name(job.state()) + "\"";
  const std::size_t at = text.find(proto_state);
  if (at == std::string::npos) throw std::logic_error("dashboard_job_text: no " + proto_state + " in the job's JSON");
  text.replace(at, proto_state.size(), "\"state\":\"" + dashboard_state(job.state()) + "\"");
  return text;
}

nlohmann::ordered_json dashboard_job(const v1::Job& job) { return nlohmann::ordered_json::parse(dashboard_job_text(job)); }

json dashboard_meta() {
  json states = json::array();
  for (JobState s : kJobStates) {
    states.push_back({{"name", std::string(job_state_name(s))}, {"active", is_active(s)}, {"terminal", is_terminal(s)}});
  }
  json metrics = json::array();
  for (std::string_view name : metric_names::kAll) metrics.push_back(std::string(name));
  return {{"job_states", states},
          {"fit_state", std::string(job_state_name(JobState::kSucceeded))},
          {"failed_state", std::string(job_state_name(JobState::kFailed))},
          {"metrics", metrics},
          {"wall_clock", std::string(metric_names::kWallSeconds)},
          // A program's metrics of its own: the prefix they carry, the longest name after it, how many a job has.
          {"user_metrics",
           {{"prefix", std::string(metric_names::kUserPrefix)},
            {"max_name_bytes", metric_names::kMaxUserNameBytes},
            {"max_per_job", metric_names::kMaxUserMetricsPerJob}}},
          {"losses",
           {{"train", std::string(metric_names::kTrainLoss)}, {"val", std::string(metric_names::kValLoss)}}},
          // The resamples `gammalab fit` draws unless told otherwise (its --bootstrap): the study card says the
          // coordinator's stored intervals may differ from the CLI's by resampling noise, and how many the CLI draws.
          {"cli_fit_bootstrap", FitOptions{}.bootstrap}};
}

json metric_columns(const std::vector<MetricPoint>& points, std::size_t buckets) {
  json out = json::object();
  for (std::size_t begin = 0; begin < points.size();) {
    std::size_t end = begin;
    while (end < points.size() && points[end].name == points[begin].name) ++end;
    const std::span<const MetricPoint> run(points.data() + begin, end - begin);
    json steps = json::array(), tokens = json::array(), values = json::array();
    auto add = [&](const MetricPoint& p) {
      steps.push_back(p.step);
      tokens.push_back(p.tokens);
      values.push_back(number_or_null(p.value));
    };
    if (buckets == 0) {
      for (const MetricPoint& p : run) add(p);
    } else {
      for (std::size_t i : downsample_indices(run, buckets)) add(run[i]);
    }
    out[points[begin].name] = {{"step", std::move(steps)}, {"tokens", std::move(tokens)}, {"value", std::move(values)}};
    begin = end;
  }
  return out;
}

RunSize run_size(const std::string& config_json) {
  RunSize size;
  try {
    const JobConfig config = job_config_from_json(json::parse(config_json));
    size.total_steps = config.steps;
    const RunPoint run = job_run_point(config, std::numeric_limits<double>::quiet_NaN(), "scale.variant", "");
    size.variant = config.scale.variant;
    size.preset = !config.model.preset.empty() ? config.model.preset
                  : config.declared_params
                      ? "N " + count_text(*config.declared_params)
                      : "custom " + std::to_string(config.model.n_layers) + "x" + std::to_string(config.model.d_model);
    size.params = static_cast<std::int64_t>(run.params);  // a parameter count: exact in a double
    size.total_params = count_params(config.model, config.scale).total;
    size.tokens = run.tokens;
    size.compute = run.compute;
  } catch (const std::exception& e) {
    size.config_error = e.what();
  }
  return size;
}

json dashboard_run(const v1::Job& job, const JobLosses& losses, const RunSize& size) {
  json row = {{"id", job.id()},          {"name", job.name()},  {"state", dashboard_state(job.state())},
              {"stage", job.stage()},
              {"step", job.step()},      {"total_steps", job.total_steps()}, {"tokens_seen", job.tokens()},
              {"variant", nullptr},      {"preset", nullptr},   {"params", nullptr},
              {"total_params", nullptr}, {"tokens", nullptr},   {"compute", nullptr},
              {"error", job.error()}};
  if (size.config_error.empty()) {
    row["variant"] = size.variant;
    row["preset"] = size.preset;
    row["params"] = size.params;
    row["total_params"] = size.total_params;
    row["tokens"] = size.tokens;
    row["compute"] = size.compute;
  } else {
    row["config_error"] = size.config_error;  // a config this build cannot read: the run is still listed
  }
  const auto& val = losses.val_loss;
  row["final_val_loss"] = number_or_null(val.empty() ? std::numeric_limits<double>::quiet_NaN() : val.back().value);
  row["final_train_loss"] = number_or_null(recent_train_loss(losses.train_loss));
  row["loss"] = size.total_steps ? number_or_null(final_loss(val, *size.total_steps)) : json(nullptr);
  return row;
}

json dashboard_run(const v1::Job& job, const JobLosses& losses) {
  return dashboard_run(job, losses, run_size(job.config_json()));
}

json dashboard_latest_fits(const std::vector<v1::Fit>& fits) {
  return {{"version", fits.front().version()}, {"fits", json::parse(proto_json_array(fits))}};
}

}  // namespace gammalab
