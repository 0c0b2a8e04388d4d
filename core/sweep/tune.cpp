#include "core/sweep/tune.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <tuple>

#include "core/branch_point.h"
#include "core/config_error.h"
#include "core/config_field.h"
#include "core/decimal_text.h"
#include "core/param_count.h"
#include "core/sweep/config_hash.h"
#include "core/expression.h"

namespace gammalab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Non-finite means are stored as the string "inf" (JSON has no infinity).
nlohmann::json mean_json(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json("inf"); }
double mean_from(const nlohmann::json& j) { return j.is_number() ? j.get<double>() : kInf; }

// The best trial is on the edge of a numeric field's grid: the optimum may lie beyond it.
std::optional<std::string> edge_of_grid(const TuneGroup& group, const std::vector<std::string>& fields,
                                        int extend = 0) {
  if (group.best < 0 || group.best >= static_cast<int>(group.trials.size())) return std::nullopt;
  const TuneTrial& best = group.trials[static_cast<std::size_t>(group.best)];
  for (const auto& field : fields) {
    const nlohmann::json& v = best.values.at(field);
    if (!v.is_number()) continue;
    double lo = kInf, hi = -kInf;
    for (const auto& t : group.trials) {
      lo = std::min(lo, t.values.at(field).get<double>());
      hi = std::max(hi, t.values.at(field).get<double>());
    }
    if (lo == hi) continue;
    const double x = v.get<double>();
    if (x == lo || x == hi) {
      return "the best " + field + " (" + v.dump() + ") is the " + (x == lo ? "smallest" : "largest") +
             " value of the grid" +
             (extend > 0 ? " after " + std::to_string(extend) + (extend == 1 ? " value" : " values") +
                               " added beyond it (tune.extend)"
                         : "") +
             ": widen the grid beyond it, set tune.extend: N (values the coordinator adds beyond an edge), or "
             "set tune.allow_edge: true";
    }
  }
  return std::nullopt;
}

// A numeric field of a config by dot path, or nullopt (no such field, or not a number).
std::optional<double> numeric_field(const JobConfig& config, const std::string& path) {
  try {
    const nlohmann::json value = config_field(config, path);
    if (value.is_number()) return value.get<double>();
  } catch (const ConfigError&) {
  }
  return std::nullopt;
}

// The value a carry expression gives the main job `job` from the pick `best`.
nlohmann::json carried_value(const std::string& text, const TuneTrial& best, const JobConfig& job,
                             const std::string& field) {
  auto lookup = [&](const std::string& name, std::size_t offset) -> double {
    if (name.rfind("tuned.", 0) == 0) {
      const std::string path = name.substr(6);
      std::optional<double> value;
      for (const auto& config : best.configs) {
        const auto v = numeric_field(config, path);
        if (!v) throw ExpressionError(offset, "the tune runs have no numeric field " + path);
        if (value && *value != *v) {
          throw ExpressionError(offset, name + " differs among the tune runs of the pick (" + number_text(*value) +
                                            ", " + number_text(*v) + "): list the field in tune.per, or tune "
                                            "at one value of it");
        }
        value = v;
      }
      if (!value) throw ExpressionError(offset, "no tune runs for " + name);
      return *value;
    }
    const auto v = numeric_field(job, name);
    if (!v) throw ExpressionError(offset, "the main job has no numeric field " + name);
    return *v;
  };
  try {
    const double value = Expression::parse(text).evaluate(lookup);
    if (!std::isfinite(value)) throw ExpressionError(0, "the result is not a finite number");
    if (config_field(job, field).is_number_integer()) return static_cast<std::int64_t>(std::llround(value));
    return value;
  } catch (const ExpressionError& e) {
    throw std::invalid_argument("tune.carry." + field + ": " + text + ": " + e.what());
  }
}

}  // namespace

bool TunePicks::ok() const {
  return !groups.empty() && std::all_of(groups.begin(), groups.end(), [](const TuneGroup& g) { return g.best >= 0; });
}

std::string TunePicks::problems() const {
  std::vector<std::string> lines;
  for (const auto& g : groups) {
    if (g.best < 0) lines.push_back("tune group " + tune_key_text(g.key) + ": " + g.problem);
  }
  if (groups.empty()) lines.push_back("no tune runs");
  return absl::StrJoin(lines, "\n");
}

bool pick_at_grid_edge(const TuneGroup& group) {
  std::vector<std::string> fields;
  if (!group.trials.empty()) {
    for (const auto& [field, value] : group.trials.front().values.items()) fields.push_back(field);
  }
  return edge_of_grid(group, fields).has_value();
}

std::string tune_key_text(const nlohmann::json& key) {
  std::vector<std::string> parts;
  for (const auto& [field, value] : key.items()) {
    parts.push_back(field + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
  }
  return parts.empty() ? "(all)" : absl::StrJoin(parts, ", ");
}

nlohmann::json tune_key(const JobConfig& config, const std::vector<std::string>& per) {
  nlohmann::json key = nlohmann::json::object();
  for (const auto& field : per) key[field] = config_field(config, field);
  return key;
}

namespace {

// TuneGroup::pick_share: the group's seeds resampled with replacement, the same draw for every value; each
// value's mean over its runs of the drawn seeds (a seed drawn twice counts twice), and whether the pick still
// has the lowest. A fixed generator seed: the same runs give the same share.
void measure_pick_share(TuneGroup& group) {
  std::set<std::uint64_t> seed_set;
  for (const TuneTrial& t : group.trials) {
    for (const JobConfig& c : t.configs) seed_set.insert(c.seed);
  }
  const std::vector<std::uint64_t> seeds(seed_set.begin(), seed_set.end());
  group.seeds = static_cast<int>(seeds.size());
  if (group.best < 0 || seeds.size() < 2) return;
  std::mt19937_64 rng(20260605);
  std::uniform_int_distribution<std::size_t> draw(0, seeds.size() - 1);
  std::map<std::uint64_t, int> weight;
  int kept = 0;
  for (int b = 0; b < kPickResamples; ++b) {
    weight.clear();
    for (std::size_t i = 0; i < seeds.size(); ++i) ++weight[seeds[draw(rng)]];
    int best = -1;
    double best_mean = kInf;
    for (std::size_t i = 0; i < group.trials.size(); ++i) {
      const TuneTrial& t = group.trials[i];
      if (!std::isfinite(t.mean_loss)) continue;  // a value with a failed run is never a pick
      double sum = 0.0, n = 0.0;
      for (std::size_t r = 0; r < t.losses.size(); ++r) {
        const auto w = weight.find(t.configs[r].seed);
        if (w == weight.end()) continue;
        sum += w->second * t.losses[r];
        n += w->second;
      }
      if (n > 0.0 && sum / n < best_mean) {
        best_mean = sum / n;
        best = static_cast<int>(i);
      }
    }
    kept += best == group.best ? 1 : 0;
  }
  group.pick_share = double(kept) / kPickResamples;
}

// The group key without its model fields: the groups of one family differ only in size.
nlohmann::json rule_family(const nlohmann::json& key) {
  nlohmann::json family = nlohmann::json::object();
  for (const auto& [field, value] : key.items()) {
    if (field.rfind("model.", 0) != 0) family[field] = value;
  }
  return family;
}

// N of a config as the sweep's `params` counts it (or as its own program declares it).
double rule_params(const JobConfig& config) {
  return config.declared_params.value_or(static_cast<double>(sweep_params(config.model)));
}

// tune.size_rule: each picked group's best (the vertex of its curve around the pick), one line per family;
// a family without a rule leaves its groups without a pick, saying why.
void fit_size_rules(const SweepStages& stages, TunePicks& picks) {
  const std::string& field = stages.tuned_fields.front();
  for (TuneGroup& group : picks.groups) {
    for (const TuneTrial& t : group.trials) {
      const nlohmann::json& v = t.values.at(field);
      if (group.best >= 0 && !(v.is_number() && v.get<double>() > 0.0)) {
        group.problem = "tune.size_rule fits the log of " + field + ", and " + v.dump() + " has none";
        group.best = -1;
      }
    }
  }
  std::vector<nlohmann::json> families;
  std::vector<std::vector<TuneRuleSize>> sizes;
  for (const TuneGroup& group : picks.groups) {
    if (group.best < 0) continue;
    const auto b = static_cast<std::size_t>(group.best);
    const auto x = [&](std::size_t i) { return std::log(group.trials[i].values.at(field).get<double>()); };
    TuneRuleSize size{group.key, rule_params(group.trials[b].configs.front()), x(b), true};
    if (b > 0 && b + 1 < group.trials.size() && std::isfinite(group.trials[b - 1].mean_loss) &&
        std::isfinite(group.trials[b + 1].mean_loss)) {
      size.log_best = parabola_vertex(x(b - 1), group.trials[b - 1].mean_loss, x(b), group.trials[b].mean_loss,
                                      x(b + 1), group.trials[b + 1].mean_loss);
      size.at_edge = false;
    }
    const nlohmann::json family = rule_family(group.key);
    const auto at = std::find(families.begin(), families.end(), family);
    if (at == families.end()) {
      families.push_back(family);
      sizes.push_back({size});
    } else {
      sizes[static_cast<std::size_t>(at - families.begin())].push_back(size);
    }
  }
  for (std::size_t f = 0; f < families.size(); ++f) picks.rules.push_back(fit_tune_rule(families[f], field, sizes[f]));
  for (TuneGroup& group : picks.groups) {
    const nlohmann::json family = rule_family(group.key);
    const auto rule = std::find_if(picks.rules.begin(), picks.rules.end(),
                                   [&](const TuneRule& r) { return r.family == family; });
    if (rule != picks.rules.end() && !rule->ok() && group.best >= 0) {
      group.problem = rule->problem;
      group.best = -1;
    }
  }
}

}  // namespace

TunePicks pick_tuned(const SweepStages& stages, const std::vector<TuneRun>& unordered) {
  // The same runs in any order give the same picks, to the bit: the runs by seed (then by config), so each
  // trial sums its losses in one order; the trials, below, by their values.
  std::vector<std::pair<std::string, const TuneRun*>> order;
  order.reserve(unordered.size());
  for (const TuneRun& run : unordered) order.emplace_back(to_json(run.config).dump(), &run);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second->config.seed, a.first) < std::tie(b.second->config.seed, b.first);
  });
  TunePicks picks;
  // Groups in the order the file gives them (their first tune job's), whatever order the runs came in.
  if (stages.tune) {
    for (const SweepJob& job : stages.tune->jobs) {
      const nlohmann::json key = tune_key(job.config, stages.per);
      if (std::none_of(picks.groups.begin(), picks.groups.end(), [&](const TuneGroup& g) { return g.key == key; })) {
        picks.groups.push_back(TuneGroup{key, {}, -1, ""});
      }
    }
  }
  for (const auto& [text, run_ptr] : order) {
    const TuneRun& run = *run_ptr;
    const nlohmann::json key = tune_key(run.config, stages.per);
    nlohmann::json values = nlohmann::json::object();
    for (const auto& field : stages.tuned_fields) values[field] = config_field(run.config, field);
    auto group = std::find_if(picks.groups.begin(), picks.groups.end(), [&](const TuneGroup& g) { return g.key == key; });
    if (group == picks.groups.end()) group = picks.groups.insert(picks.groups.end(), TuneGroup{key, {}, -1, ""});
    auto trial = std::find_if(group->trials.begin(), group->trials.end(),
                              [&](const TuneTrial& t) { return t.values == values; });
    if (trial == group->trials.end()) trial = group->trials.insert(group->trials.end(), TuneTrial{values, 0, 0, 0.0, {}, {}, ""});
    ++trial->runs;
    trial->configs.push_back(run.config);
    trial->losses.push_back(run.loss);
    if (std::isfinite(run.loss)) trial->mean_loss += run.loss;
    else ++trial->failed;
  }
  // A group of the file without runs here (a caller that passes a subset) is left out, as before.
  picks.groups.erase(std::remove_if(picks.groups.begin(), picks.groups.end(),
                                    [](const TuneGroup& g) { return g.trials.empty(); }),
                     picks.groups.end());
  for (auto& group : picks.groups) {
    for (auto& trial : group.trials) {
      trial.mean_loss = trial.failed > 0 ? kInf : trial.mean_loss / trial.runs;
    }
    std::stable_sort(group.trials.begin(), group.trials.end(),
                     [](const TuneTrial& a, const TuneTrial& b) { return a.values < b.values; });
    for (std::size_t i = 0; i < group.trials.size(); ++i) {
      if (!std::isfinite(group.trials[i].mean_loss)) continue;
      if (group.best < 0 || group.trials[i].mean_loss < group.trials[static_cast<std::size_t>(group.best)].mean_loss) {
        group.best = static_cast<int>(i);
      }
    }
    if (group.best < 0) {
      group.problem = "every value tried has a run without a final loss (failed, diverged or cancelled)";
      continue;
    }
    measure_pick_share(group);
    if (stages.allow_edge) continue;
    if (auto edge = edge_of_grid(group, stages.tuned_fields, stages.extend)) {
      group.problem = *edge;
      group.best = -1;
    }
  }
  if (stages.size_rule) fit_size_rules(stages, picks);
  return picks;
}

std::optional<std::string> uncovered_main_job(const SweepStages& stages) {
  if (!stages.tune) return std::nullopt;
  // Under a size rule a main job needs its family tuned, not its own size: the rule gives every N a value, so
  // the tune stage may run at some of the sizes only (tune.axes), the others taking the rule between them.
  const auto covered = [&](const JobConfig& config) {
    const nlohmann::json key = tune_key(config, stages.per);
    return stages.size_rule ? rule_family(key) : key;
  };
  std::vector<nlohmann::json> keys;
  for (const auto& job : stages.tune->jobs) keys.push_back(covered(job.config));
  for (const auto& job : stages.main.jobs) {
    const nlohmann::json key = covered(job.config);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return "main job " + job.name + " has no tune runs with " + tune_key_text(key) +
             ": tune.per names fields whose values the tune runs must all cover (tune.axes restricts " +
             "them), or leave those fields out of tune.per";
    }
  }
  return std::nullopt;
}

Sweep apply_picks(const SweepStages& stages, const TunePicks& picks) {
  if (!picks.ok()) throw std::invalid_argument(picks.problems());
  Sweep main = stages.main;
  for (auto& job : main.jobs) {
    const nlohmann::json key = tune_key(job.config, stages.per);
    auto group = std::find_if(picks.groups.begin(), picks.groups.end(), [&](const TuneGroup& g) { return g.key == key; });
    if (group == picks.groups.end() && stages.size_rule) {  // a size the stage did not tune: its family's rule
      group = std::find_if(picks.groups.begin(), picks.groups.end(),
                           [&](const TuneGroup& g) { return rule_family(g.key) == rule_family(key); });
    }
    if (group == picks.groups.end()) {
      throw std::invalid_argument("main job " + job.name + ": no tune group " + tune_key_text(key));
    }
    const TuneTrial& best = group->trials[static_cast<std::size_t>(group->best)];
    if (stages.size_rule) {
      const nlohmann::json family = rule_family(key);
      const auto rule = std::find_if(picks.rules.begin(), picks.rules.end(),
                                     [&](const TuneRule& r) { return r.family == family && r.ok(); });
      if (rule == picks.rules.end()) throw std::invalid_argument("main job " + job.name + ": no size rule for " + tune_key_text(family));
      const nlohmann::json& like = best.values.at(rule->field);
      const double value = rule->value_at(rule_params(job.config));
      job.config = with_config_field(job.config, rule->field,
                                     like.is_number_integer() ? nlohmann::json(std::llround(value)) : nlohmann::json(value));
      job.config_hash = config_hash(job.config);
      continue;
    }
    const JobConfig untuned = job.config;
    for (const auto& [field, value] : best.values.items()) {
      const auto carry = stages.carry.find(field);
      const nlohmann::json carried = carry == stages.carry.end() ? value : carried_value(carry->second, best, untuned, field);
      job.config = with_config_field(job.config, field, carried);
    }
    job.config_hash = config_hash(job.config);
  }
  // A cooldown branch must still be its run's continuation (core/branch_point.h): a carry expression of a field
  // that differs between them (the run's steps) would make it another experiment.
  for (const SweepJob& job : main.jobs) {
    if (!job.parent || *job.parent >= main.jobs.size()) continue;
    const SweepJob& run = main.jobs[*job.parent];
    if (const std::string mismatch = branch_point_mismatch(run.config, job.config, job.branch_step); !mismatch.empty()) {
      throw std::invalid_argument("with the picks applied, the branch " + job.name + " no longer starts from its run " +
                                  run.name + ": " + mismatch);
    }
  }
  return main;
}

nlohmann::json to_json(const TunePicks& picks) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : picks.groups) {
    nlohmann::json trials = nlohmann::json::array();
    for (const auto& t : g.trials) {
      nlohmann::json trial = {{"values", t.values}, {"runs", t.runs}, {"failed", t.failed}, {"mean_loss", mean_json(t.mean_loss)}};
      if (!t.origin.empty()) trial["origin"] = t.origin;
      trials.push_back(std::move(trial));
    }
    groups.push_back({{"key", g.key}, {"trials", trials}, {"best", g.best}, {"problem", g.problem},
                      {"seeds", g.seeds},
                      {"pick_share", std::isnan(g.pick_share) ? nlohmann::json(nullptr) : nlohmann::json(g.pick_share)}});
  }
  nlohmann::json out = {{"groups", groups}};
  if (!picks.rules.empty()) {
    nlohmann::json rules = nlohmann::json::array();
    for (const auto& r : picks.rules) rules.push_back(to_json(r));
    out["rules"] = rules;
  }
  return out;
}

TunePicks tune_picks_from_json(const nlohmann::json& json) {
  TunePicks picks;
  for (const auto& g : json.at("groups")) {
    TuneGroup group{g.at("key"), {}, g.at("best").get<int>(), g.at("problem").get<std::string>()};
    // Picks stored before the share was measured have none.
    group.seeds = g.value("seeds", 0);
    if (g.contains("pick_share") && !g.at("pick_share").is_null()) group.pick_share = g.at("pick_share").get<double>();
    for (const auto& t : g.at("trials")) {
      group.trials.push_back({t.at("values"), t.at("runs").get<int>(), t.at("failed").get<int>(),
                              mean_from(t.at("mean_loss")), {}, {}, t.value("origin", std::string())});
    }
    if (group.best >= static_cast<int>(group.trials.size())) group.best = -1;
    picks.groups.push_back(std::move(group));
  }
  if (json.contains("rules")) {
    for (const auto& r : json.at("rules")) picks.rules.push_back(tune_rule_from_json(r));
  }
  return picks;
}

}  // namespace gammalab
