#include "core/scaling/imported_runs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/config_error.h"
#include "core/decimal_text.h"
#include "core/metric_check.h"
#include "core/metric_names.h"
#include "core/model_preset.h"
#include "core/scaling/csv_points.h"
#include "core/utf8_text.h"

namespace gammalab {

namespace {

// The config of an imported run: the defaults, the source's own fields (`extra`, as a sweep's `base` would set
// them), then what the import declares. Validated as any job's.
JobConfig imported_config(const nlohmann::json& extra, const std::string& group, std::uint64_t seed, double params,
                          double tokens, std::int64_t steps, const std::string& imported) {
  nlohmann::json json = to_json(JobConfig{});
  if (!extra.is_null()) json.merge_patch(extra);
  json["scale"]["variant"] = group;
  if (variant_sets_qk_norm(group)) json["model"]["qk_norm"] = true;  // validate() asks it of that variant's name
  json["seed"] = seed;
  json["steps"] = std::max<std::int64_t>(steps, 1);
  json["declared_params"] = params;
  json["declared_tokens"] = tokens;
  json["imported"] = imported;
  JobConfig config = job_config_from_json(json);
  validate(config);
  return config;
}

std::string shown(const std::string& text) { return "'" + utf8_head(text, 80) + (text.size() > 80 ? "...'" : "'"); }

// A sweep's jobs have distinct names. `source`, when given, starts the message (a file's name).
void check_distinct_names(const std::vector<ImportedRun>& runs, const std::string& source) {
  std::map<std::string, std::size_t> first;  // name -> its first run's index
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto [at, fresh] = first.emplace(runs[i].name, i);
    if (!fresh) {
      throw std::invalid_argument((source.empty() ? "" : source + ": ") + "run " + shown(runs[i].name) +
                                  ": the name of runs " + std::to_string(at->second + 1) + " and " +
                                  std::to_string(i + 1) + " (a sweep's jobs have distinct names)");
    }
  }
}

void check_count(std::size_t runs, std::size_t points, const std::string& where) {
  if (runs > kMaxImportedRuns) {
    throw std::invalid_argument(where + ": more than the limit of " + std::to_string(kMaxImportedRuns) + " runs");
  }
  if (points > kMaxImportedPoints) {
    throw std::invalid_argument(where + ": more than the limit of " + std::to_string(kMaxImportedPoints) +
                                " metric points");
  }
}

}  // namespace

std::vector<ImportedRun> imported_runs_from_csv(std::string_view text, const std::string& source) {
  const std::vector<RunPoint> rows = parse_points_csv(text, source);
  check_count(rows.size(), rows.size(), source);
  std::vector<ImportedRun> runs;
  runs.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const RunPoint& row = rows[i];
    const std::string where = source + ": row " + std::to_string(i + 1);
    // Runs are paired by seed (core/scaling/pairing.h): an invented seed would invent pairs.
    if (!row.seed) {
      throw std::invalid_argument(where + ": no seed; an imported run needs its seed (a seed column), since runs of "
                                  "the same size and seed are compared as pairs (give distinct seeds to unpaired runs)");
    }
    // The store's D and C are declared tokens and 6 N D; a compute column that says otherwise would be lost.
    const double six_nd = 6.0 * row.params * row.tokens;
    if (row.compute > 0 && std::abs(row.compute - six_nd) > 1e-9 * six_nd) {
      throw std::invalid_argument(where + ": column 'compute': " + number_text(row.compute) +
                                  " is not 6 N D = " + number_text(six_nd) +
                                  "; an imported run's compute is 6 N D (fit such a file with gammalab fit --points)");
    }
    const std::string group = row.group.empty() ? "baseline" : row.group;
    ImportedRun run;
    run.name = !row.label.empty() ? row.label
                                  : group + "/N=" + number_text(row.params) + "/D=" + number_text(row.tokens) + "/s" +
                                        std::to_string(*row.seed);
    try {
      run.config = imported_config(nullptr, group, *row.seed, row.params, row.tokens, 1,
                                   source + " row " + std::to_string(i + 1));
    } catch (const ConfigError& e) {
      throw std::invalid_argument(where + ": " + e.what());
    }
    // One point: its loss at the run's last step, as a trained job's final evaluation.
    run.points.push_back({1, static_cast<std::int64_t>(std::llround(std::min(row.tokens, 9.0e18))),
                          std::string(metric_names::kValLoss), row.loss});
    check_imported_run(run);
    runs.push_back(std::move(run));
  }
  check_distinct_names(runs, source);
  return runs;
}

std::vector<ImportedRun> imported_runs_from_jsonl(std::string_view text, const std::string& source) {
  struct Header {
    nlohmann::json json;
    std::size_t line = 0;
  };
  std::vector<std::pair<Header, std::vector<MetricPoint>>> parsed;
  std::size_t points = 0;
  std::istringstream in{std::string(text)};
  std::string line;
  std::size_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    const std::string where = source + ":" + std::to_string(line_no);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json json = nlohmann::json::parse(line, nullptr, false);
    if (json.is_object() && json.contains("run")) {
      if (!json["run"].is_object()) throw std::invalid_argument(where + ": 'run' must be an object");
      parsed.push_back({{json["run"], line_no}, {}});
      check_count(parsed.size(), points, source);
      continue;
    }
    std::optional<std::vector<MetricPoint>> line_points;
    try {
      line_points = parse_metric_line(line);
    } catch (const std::exception& e) {
      throw std::invalid_argument(where + ": " + e.what());
    }
    if (!line_points) {
      throw std::invalid_argument(where + ": neither a run line ({\"run\": {...}}) nor a metric line " +
                                  "({\"step\": ..., \"metrics\": {...}})");
    }
    if (parsed.empty()) throw std::invalid_argument(where + ": a metric line before the first run line");
    points += line_points->size();
    check_count(parsed.size(), points, source);
    auto& into = parsed.back().second;
    into.insert(into.end(), line_points->begin(), line_points->end());
  }
  if (parsed.empty()) throw std::invalid_argument(source + ": no run line ({\"run\": {...}})");

  std::vector<ImportedRun> runs;
  runs.reserve(parsed.size());
  for (auto& [header, run_points] : parsed) {
    const std::string where = source + ":" + std::to_string(header.line);
    const nlohmann::json& h = header.json;
    const auto text_field = [&](const char* key, const std::string& fallback) {
      if (!h.contains(key)) return fallback;
      if (!h[key].is_string()) throw std::invalid_argument(where + ": run." + key + " must be a string");
      return h[key].get<std::string>();
    };
    const auto number_field = [&](const char* key) -> std::optional<double> {
      if (!h.contains(key)) return std::nullopt;
      if (!h[key].is_number()) throw std::invalid_argument(where + ": run." + key + " must be a number");
      return h[key].get<double>();
    };
    for (const auto& [key, value] : h.items()) {
      static const std::set<std::string> kKeys = {"name", "group", "seed", "params", "tokens", "source", "config"};
      if (!kKeys.contains(key)) {
        throw std::invalid_argument(where + ": run." + key + ": not a field (name, group, seed, params, tokens, " +
                                    "source, config)");
      }
    }
    const std::optional<double> params = number_field("params");
    if (!params) throw std::invalid_argument(where + ": run.params is required: the N the fits use");
    if (!h.contains("seed") || !h["seed"].is_number_unsigned()) {
      throw std::invalid_argument(where + ": run.seed is required, a non-negative integer (runs of the same size " +
                                  "and seed are compared as pairs)");
    }
    std::int64_t steps = 1, last_tokens = 0;
    for (const MetricPoint& p : run_points) {
      steps = std::max(steps, p.step);
      last_tokens = std::max(last_tokens, p.tokens);
    }
    // D: as declared, else the tokens of the run's last point.
    const double tokens = number_field("tokens").value_or(double(last_tokens));
    if (!(tokens >= 1)) {
      throw std::invalid_argument(where + ": run.tokens is required when the metric lines carry no tokens: the D " +
                                  "the fits use");
    }
    if (h.contains("config") && !h["config"].is_object()) {
      throw std::invalid_argument(where + ": run.config must be an object of config fields");
    }
    const std::string group = text_field("group", "baseline");
    const std::uint64_t seed = h["seed"].get<std::uint64_t>();
    ImportedRun run;
    run.name = text_field("name", group + "/s" + std::to_string(seed));
    const std::string from = text_field("source", source + " line " + std::to_string(header.line));
    try {
      run.config = imported_config(h.contains("config") ? h["config"] : nlohmann::json(), group, seed, *params,
                                   tokens, steps, from);
    } catch (const ConfigError& e) {
      throw std::invalid_argument(where + ": " + e.what());
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument(where + ": run.config: " + e.what());
    }
    run.points = std::move(run_points);
    try {
      check_imported_run(run);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(where + ": " + e.what());
    }
    runs.push_back(std::move(run));
  }
  check_distinct_names(runs, source);
  return runs;
}

void check_imported_runs(std::vector<ImportedRun>& runs) {
  for (ImportedRun& run : runs) check_imported_run(run);
  check_distinct_names(runs, "");
}

void check_imported_run(ImportedRun& run) {
  const std::string who = "run " + shown(run.name);
  if (run.name.empty() || run.name.size() > kMaxImportedNameBytes || utf8_valid(run.name) != run.name) {
    throw std::invalid_argument(who + ": a name must be 1 to " + std::to_string(kMaxImportedNameBytes) +
                                " bytes of UTF-8, got " + std::to_string(run.name.size()));
  }
  try {
    validate(run.config);
  } catch (const ConfigError& e) {
    throw std::invalid_argument(who + ": " + e.what());
  }
  if (!run.config.imported) throw std::invalid_argument(who + ": imported: where the run came from is not set");
  if (run.config.command) throw std::invalid_argument(who + ": command: an imported run is never run");
  if (!run.config.declared_params || !run.config.declared_tokens) {
    throw std::invalid_argument(who + ": declared_params and declared_tokens are required: the N and D of the fits");
  }
  if (run.points.size() > kMaxImportedPoints) {
    throw std::invalid_argument(who + ": " + std::to_string(run.points.size()) +
                                " metric points, more than the limit of " + std::to_string(kMaxImportedPoints));
  }
  std::stable_sort(run.points.begin(), run.points.end(), [](const MetricPoint& a, const MetricPoint& b) {
    return a.name != b.name ? a.name < b.name : a.step < b.step;
  });
  for (std::size_t i = 0; i < run.points.size(); ++i) {
    const MetricPoint& p = run.points[i];
    if (std::string error = metric_point_error(p); !error.empty()) throw std::invalid_argument(who + ": " + error);
    if (p.step < 0 || p.step > run.config.steps) {
      throw std::invalid_argument(who + ": " + p.name + " at step " + std::to_string(p.step) + ": outside [0, " +
                                  std::to_string(run.config.steps) + "], the run's steps");
    }
    if (i > 0 && run.points[i - 1].name == p.name && run.points[i - 1].step == p.step) {
      throw std::invalid_argument(who + ": " + p.name + " twice at step " + std::to_string(p.step) + " (" +
                                  number_text(run.points[i - 1].value) + " and " + number_text(p.value) + ")");
    }
  }
}

}  // namespace gammalab
