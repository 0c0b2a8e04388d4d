#include "core/sweep/tune_rounds.h"

#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/config_error.h"
#include "core/config_field.h"
#include "core/decimal_text.h"
#include "core/sweep/config_hash.h"
#include "core/sweep/schema.h"

namespace gammalab {

namespace {

// A grid of positive values is read as geometric (an LR grid ×2 apart), one with 0 or below as arithmetic (a
// weight decay of 0, 0.05, 0.1): the steps beyond its edges and the midpoints between its values follow it.
double step_beyond(bool geometric, double inner, double edge) {
  return geometric ? edge * (edge / inner) : edge + (edge - inner);
}

double midpoint(bool geometric, double a, double b) { return geometric ? std::sqrt(a * b) : 0.5 * (a + b); }

// The value as the field stores it: a whole number for an integer field.
nlohmann::json field_value(bool integer, double v) {
  if (integer) return static_cast<std::int64_t>(std::llround(v));
  return v;
}

// A numeric tuned field's grid in one group: the values as written, and the coarse grid, which adds the values
// tune.extend may reach beyond each edge (each a grid step past the one before). A coarse pick is made among
// the coarse values only, so the midpoints a refinement adds never move it.
struct FieldGrid {
  std::vector<double> written;  // sorted
  std::vector<double> coarse;   // sorted
  bool geometric = true;
  bool integer = false;
  bool is_coarse(double v) const { return std::binary_search(coarse.begin(), coarse.end(), v); }
  bool is_written(double v) const { return std::binary_search(written.begin(), written.end(), v); }
};
using Grids = std::map<nlohmann::json, std::map<std::string, FieldGrid>>;  // group key -> field -> grid

Grids written_grids(const SweepStages& stages) {
  std::map<nlohmann::json, std::map<std::string, std::pair<std::set<double>, bool>>> sets;
  if (stages.tune) {
    for (const SweepJob& job : stages.tune->jobs) {
      auto& fields = sets[tune_key(job.config, stages.per)];
      for (const auto& field : stages.tuned_fields) {
        const nlohmann::json v = config_field(job.config, field);
        if (!v.is_number()) continue;
        fields[field].first.insert(v.get<double>());
        fields[field].second = v.is_number_integer();
      }
    }
  }
  Grids out;
  for (const auto& [key, fields] : sets) {
    for (const auto& [field, values] : fields) {
      FieldGrid& grid = out[key][field];
      grid.written.assign(values.first.begin(), values.first.end());
      grid.integer = values.second;
      grid.geometric = grid.written.front() > 0.0;
      std::set<double> coarse(values.first);
      if (grid.written.size() >= 2) {
        for (const bool up : {true, false}) {
          const std::size_t n = grid.written.size();
          double inner = up ? grid.written[n - 2] : grid.written[1];
          double edge = up ? grid.written[n - 1] : grid.written[0];
          for (int k = 0; k < stages.extend; ++k) {
            const double next = field_value(grid.integer, step_beyond(grid.geometric, inner, edge)).get<double>();
            if (!std::isfinite(next) || next == edge) break;
            coarse.insert(next);
            inner = edge;
            edge = next;
          }
        }
      }
      grid.coarse.assign(coarse.begin(), coarse.end());
    }
  }
  return out;
}


bool allowed(const JobConfig& config, const std::string& field, const nlohmann::json& value) {
  try {
    with_config_field(config, field, value);
    return true;
  } catch (const ConfigError&) {
    return false;
  }
}

// The copied run's name with the changed field's part (`lr=...`) giving its new value.
std::string renamed(const std::string& name, const std::string& field, const nlohmann::json& value) {
  const std::string prefix = SweepSchema::instance().short_name(field) + "=";
  const std::string part = prefix + (value.is_number_integer() ? value.dump() : number_text(value.get<double>()));
  std::vector<std::string> parts = absl::StrSplit(name, '/');
  bool replaced = false;
  for (auto& p : parts) {
    if (p.rfind(prefix, 0) == 0) {
      p = part;
      replaced = true;
    }
  }
  if (!replaced) parts.insert(parts.empty() ? parts.end() : parts.end() - 1, part);  // before the seed
  return absl::StrJoin(parts, "/");
}

// The sorted distinct values of a numeric field among a group's trials.
std::vector<double> trial_values(const TuneGroup& group, const std::string& field) {
  std::set<double> values;
  for (const auto& t : group.trials) values.insert(t.values.at(field).get<double>());
  return {values.begin(), values.end()};
}

}  // namespace

Sweep next_tune_round(const SweepStages& stages, const std::vector<TuneRun>& runs) {
  Sweep round;
  if (!stages.tune) return round;
  round.name = stages.tune->name;
  round.description = stages.tune->description;
  round.priority = stages.tune->priority;
  round.max_attempts = stages.tune->max_attempts;
  if (stages.extend == 0 && !stages.refine) return round;

  const Grids grids = written_grids(stages);
  const auto grid_of = [&](const nlohmann::json& key, const std::string& field) -> const FieldGrid* {
    const auto g = grids.find(key);
    if (g == grids.end()) return nullptr;
    const auto f = g->second.find(field);
    return f == g->second.end() ? nullptr : &f->second;
  };
  // Each run's group key and tuned values, read once (each read converts its config to JSON).
  std::vector<std::pair<nlohmann::json, nlohmann::json>> keyed;
  keyed.reserve(runs.size());
  for (const TuneRun& run : runs) {
    nlohmann::json values = nlohmann::json::object();
    for (const auto& field : stages.tuned_fields) values[field] = config_field(run.config, field);
    keyed.emplace_back(tune_key(run.config, stages.per), std::move(values));
  }
  // The coarse pick: among the values on the grid and beyond it, without the midpoints a refinement added.
  std::vector<TuneRun> coarse_runs;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    bool on_grid = true;
    for (const auto& field : stages.tuned_fields) {
      const nlohmann::json& v = keyed[i].second.at(field);
      const FieldGrid* grid = grid_of(keyed[i].first, field);
      if (v.is_number() && grid && !grid->is_coarse(v.get<double>())) on_grid = false;
    }
    if (on_grid) coarse_runs.push_back(runs[i]);
  }
  SweepStages any_edge = stages;
  any_edge.allow_edge = true;
  any_edge.size_rule = false;  // the rounds widen and refine each size's own curve
  const TunePicks coarse_picks = pick_tuned(any_edge, coarse_runs);
  const std::set<std::pair<nlohmann::json, nlohmann::json>> tried(keyed.begin(), keyed.end());  // (key, values)

  std::set<std::string> added;  // config hashes
  for (const TuneGroup& group : coarse_picks.groups) {
    if (group.best < 0) continue;
    const TuneTrial& best = group.trials[static_cast<std::size_t>(group.best)];
    std::vector<std::pair<std::string, nlohmann::json>> extensions, refinements;
    for (const auto& field : stages.tuned_fields) {
      const nlohmann::json& value = best.values.at(field);
      const FieldGrid* grid = grid_of(group.key, field);
      if (!value.is_number() || !grid) continue;
      const std::vector<double> values = trial_values(group, field);
      if (values.size() < 2) continue;
      const double x = value.get<double>();
      if (x == values.back() || x == values.front()) {
        // The next coarse value past the edge, if tune.extend reaches it and the field allows it (a weight
        // decay cannot go below 0: that edge is the field's own, not the grid's).
        const bool top = x == values.back();
        const auto at = std::lower_bound(grid->coarse.begin(), grid->coarse.end(), x);
        const bool exists = top ? at != grid->coarse.end() && at + 1 != grid->coarse.end() : at != grid->coarse.begin();
        if (!exists) continue;
        const nlohmann::json widened = field_value(grid->integer, top ? *(at + 1) : *(at - 1));
        if (allowed(best.configs.front(), field, widened)) extensions.emplace_back(field, widened);
      } else if (stages.refine) {
        const auto at = std::lower_bound(values.begin(), values.end(), x);
        for (const double neighbour : {*(at - 1), *(at + 1)}) {
          refinements.emplace_back(field, field_value(grid->integer, midpoint(grid->geometric, neighbour, x)));
        }
      }
    }
    // A group still widening its grid is refined once its coarse pick has settled inside it.
    const auto& targets = extensions.empty() ? refinements : extensions;
    for (const auto& [field, target] : targets) {
      nlohmann::json values = best.values;
      values[field] = target;
      if (values == best.values) continue;  // an integer midpoint that rounds onto the pick
      if (tried.count({group.key, values})) continue;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const TuneRun& run = runs[i];
        if (keyed[i].first != group.key || keyed[i].second != best.values) continue;  // the pick's runs only
        if (!allowed(run.config, field, values[field])) continue;  // a midpoint no config of the pick allows
        SweepJob job;
        job.config = with_config_field(run.config, field, values[field]);
        job.config_hash = config_hash(job.config);
        if (!added.insert(job.config_hash).second) continue;
        job.name = renamed(run.name, field, values[field]);
        job.tokens = job.config.steps * job.config.batch_tokens;
        round.jobs.push_back(std::move(job));
      }
    }
  }
  // In a fixed order whatever order the runs came in: the same round gets the same job ordinals.
  std::sort(round.jobs.begin(), round.jobs.end(),
            [](const SweepJob& a, const SweepJob& b) { return a.name < b.name || (a.name == b.name && a.config_hash < b.config_hash); });
  return round;
}

std::size_t max_tune_round_jobs(const SweepStages& stages) {
  if (!stages.tune || (stages.extend == 0 && !stages.refine)) return 0;
  // Per group: its jobs, and the distinct combinations of tuned values they run.
  std::map<nlohmann::json, std::pair<std::size_t, std::set<nlohmann::json>>> groups;
  std::size_t numeric = 0;
  for (const SweepJob& job : stages.tune->jobs) {
    auto& [jobs, values] = groups[tune_key(job.config, stages.per)];
    nlohmann::json v = nlohmann::json::object();
    for (const auto& field : stages.tuned_fields) v[field] = config_field(job.config, field);
    ++jobs;
    values.insert(v);
  }
  if (!stages.tune->jobs.empty()) {
    for (const auto& field : stages.tuned_fields) numeric += config_field(stages.tune->jobs.front().config, field).is_number();
  }
  const std::size_t per_field = 2 * static_cast<std::size_t>(stages.extend) + (stages.refine ? 2 : 0);
  std::size_t total = 0;
  for (const auto& [key, group] : groups) {
    const std::size_t runs_per_value = group.first / std::max<std::size_t>(1, group.second.size());
    total += numeric * per_field * runs_per_value;
  }
  return total;
}

void mark_tune_origins(const SweepStages& stages, TunePicks& picks) {
  const Grids grids = written_grids(stages);
  for (TuneGroup& group : picks.groups) {
    const auto fields = grids.find(group.key);
    for (TuneTrial& trial : group.trials) {
      trial.origin.clear();
      if (fields == grids.end()) continue;
      for (const auto& [field, value] : trial.values.items()) {
        const auto grid = fields->second.find(field);
        if (!value.is_number() || grid == fields->second.end()) continue;
        const double x = value.get<double>();
        if (!grid->second.is_coarse(x)) {
          trial.origin = "refined";
          break;
        }
        if (!grid->second.is_written(x)) trial.origin = "extended";
      }
    }
  }
}

}  // namespace gammalab
