#include "core/scaling/law_form_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <stdexcept>
#include <tuple>

#include "core/scaling/fit_options.h"
#include "core/scaling/fit_parallel.h"
#include "core/scaling/lbfgs.h"
#include "core/scaling/law.h"
#include "core/scaling/law_form_objective.h"
#include "core/scaling/objective.h"

namespace gammalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr int kMinClusters = 3;  // the fewest distinct families a resample without seeds keeps (as bootstrap.h)

// Configurations: the rows of one group with bit-equal values, their mean loss the point the law is fitted to.
struct Configuration {
  std::vector<double> values;
  std::vector<std::size_t> rows;
  double mean_loss = 0.0;
};


bool row_before(const LawRow& a, const LawRow& b) {
  return std::tie(a.group, a.values, a.seed, a.loss, a.label) < std::tie(b.group, b.values, b.seed, b.loss, b.label);
}

// Rows of one group in canonical order are consecutive per configuration.
std::vector<Configuration> configurations(const std::vector<LawRow>& rows) {
  std::vector<Configuration> out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (out.empty() || out.back().values != rows[i].values) out.push_back({rows[i].values, {}, 0.0});
    out.back().rows.push_back(i);
  }
  for (auto& c : out) {
    double sum = 0.0;
    for (auto i : c.rows) sum += rows[i].loss;
    c.mean_loss = sum / static_cast<double>(c.rows.size());
  }
  return out;
}

Points points_of(const std::vector<Configuration>& configs) {
  Points p;
  for (const auto& c : configs) {
    p.x.push_back(c.values);
    p.y.push_back(std::log(c.mean_loss));
  }
  return p;
}

// The seeds' pure error of a configuration's mean in ln L (replicates.h: mean_log_scatter, for any variables).
std::optional<double> log_scatter(const std::vector<LawRow>& rows, const std::vector<Configuration>& configs) {
  double ss = 0.0, df = 0.0, runs = 0.0, replicated = 0.0;
  for (const auto& c : configs) {
    if (c.rows.size() < 2) continue;
    double mean = 0.0;
    for (auto i : c.rows) mean += std::log(rows[i].loss);
    mean /= static_cast<double>(c.rows.size());
    for (auto i : c.rows) ss += (std::log(rows[i].loss) - mean) * (std::log(rows[i].loss) - mean);
    df += static_cast<double>(c.rows.size() - 1);
    runs += static_cast<double>(c.rows.size());
    replicated += 1.0;
  }
  if (df < 1.0) return std::nullopt;
  return std::sqrt(ss / df) / std::sqrt(runs / replicated);
}

std::vector<std::vector<double>> search_grid(const LawForm& form) {
  std::vector<std::vector<double>> grid{{}};
  for (const auto& p : form.parameters) {
    std::vector<std::vector<double>> next;
    next.reserve(grid.size() * p.starts.size());
    for (const auto& prefix : grid) {
      for (double v : p.starts) {
        next.push_back(prefix);
        next.back().push_back(p.to_search(v));
      }
    }
    grid = std::move(next);
  }
  return grid;
}

std::vector<double> parameters_of(const LawForm& form, const std::vector<double>& z) {
  std::vector<double> out;
  for (std::size_t k = 0; k < form.parameters.size(); ++k) out.push_back(form.parameters[k].from_search(z[k]));
  return out;
}

struct Solved {
  MultiStart starts;
  double delta = 0.0;
};

Solved solve(const LawForm& form, const Points& points, const std::vector<std::vector<double>>& starts, double delta,
             const LawFormSettings& settings, int threads) {
  const auto f = law_form_objective(form, points, delta);
  return {minimise_from_each(*f, starts, settings.max_iterations, threads, settings.warm_starts), delta};
}

// The full fit of one group at the delta the settings give (as fit.h: minimise_at_noise).
Solved fit_at_noise(const LawForm& form, const Points& points, std::optional<double> scatter,
                    const LawFormSettings& settings, std::string& source) {
  const auto grid = search_grid(form);
  if (settings.delta_given) {
    source = kDeltaGiven;
    return solve(form, points, grid, settings.huber_delta, settings, settings.threads);
  }
  if (scatter && *scatter > 0.0) {
    source = kDeltaSeeds;
    return solve(form, points, grid, std::max(settings.huber_delta, settings.huber_k * *scatter), settings,
                 settings.threads);
  }
  source = kDeltaResiduals;
  Solved first = solve(form, points, grid, settings.huber_delta, settings, settings.threads);
  const LbfgsResult* best = first.starts.best();
  if (best == nullptr || !std::isfinite(best->cost)) return first;
  std::vector<double> residuals;
  const std::vector<double> theta = parameters_of(form, best->x);
  for (std::size_t i = 0; i < points.y.size(); ++i) {
    residuals.push_back(std::abs(std::log(law_form_loss(form, theta, points.x[i])) - points.y[i]));
  }
  std::nth_element(residuals.begin(), residuals.begin() + static_cast<std::ptrdiff_t>(residuals.size() / 2),
                   residuals.end());
  const double delta = std::max(settings.huber_delta, settings.huber_k * 1.4826 * residuals[residuals.size() / 2]);
  if (!(delta > settings.huber_delta)) return first;
  Solved refit = solve(form, points, first.starts.best_optima, delta, settings, settings.threads);
  refit.starts.converged = first.starts.converged;  // what was tried: the grid, then its best optima again
  return refit;
}

std::vector<double> family_key(const LawForm& form, const std::vector<double>& values) {
  std::vector<double> key;
  for (auto index : form.family) key.push_back(values[index]);
  return key;
}

// The bootstrap's plan for one group: seeds within families when every configuration ran two or more seeds
// and every row has one, else clusters of the families' values.
struct Resampling {
  bool seeds = false;
  struct Family {
    std::vector<std::size_t> members;   // configurations
    std::vector<std::uint64_t> seeds;   // distinct, ascending (with seeds)
  };
  std::map<std::vector<double>, Family> families;  // by key
  double degrees_of_freedom = 0.0;
};
// The distinct seeds of a family's runs, ascending.
std::vector<std::uint64_t> family_seeds(const std::vector<LawRow>& rows, const std::vector<Configuration>& configs,
                                        const std::vector<std::size_t>& members) {
  std::vector<std::uint64_t> seeds;
  for (auto c : members) {
    for (auto i : configs[c].rows) seeds.push_back(*rows[i].seed);
  }
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  return seeds;
}

Resampling resampling_of(const LawForm& form, const std::vector<LawRow>& rows,
                         const std::vector<Configuration>& configs) {
  Resampling plan;
  plan.seeds = std::all_of(configs.begin(), configs.end(), [](const Configuration& c) { return c.rows.size() >= 2; }) &&
               std::all_of(rows.begin(), rows.end(), [](const LawRow& r) { return r.seed.has_value(); });
  for (std::size_t c = 0; c < configs.size(); ++c) plan.families[family_key(form, configs[c].values)].members.push_back(c);
  if (plan.seeds) {
    for (auto& [key, family] : plan.families) {
      family.seeds = family_seeds(rows, configs, family.members);
      plan.degrees_of_freedom += static_cast<double>(family.seeds.size()) - 1.0;
    }
  }
  return plan;
}

// A drawn loss moved from its configuration's mean by sqrt(n/(n-1)) (bootstrap.h: resample_within_cells).
double spread(double loss, const Configuration& c) {
  const double n = static_cast<double>(c.rows.size());
  return c.mean_loss + (loss - c.mean_loss) * std::sqrt(n / (n - 1.0));
}

// One resample's configurations (their mean losses redrawn), keyed by what each block is, not by visiting order.
// `paired`: every group draws the same seeds for a family (its key leaves the group out), so a variant's
// difference to the baseline keeps what a pair of runs shares out of its spread (bootstrap.h: resample_paired).
std::vector<Configuration> resample(const std::vector<LawRow>& rows, const std::vector<Configuration>& configs,
                                    const Resampling& plan, const std::string& group, bool paired,
                                    std::uint64_t stream) {
  std::vector<Configuration> out;
  if (!plan.seeds) {
    std::vector<const std::vector<std::size_t>*> clusters;
    for (const auto& [key, family] : plan.families) clusters.push_back(&family.members);
    std::mt19937_64 rng = keyed_generator(stream, group, {}, {});
    std::uniform_int_distribution<std::size_t> pick(0, clusters.size() - 1);
    const std::size_t wanted = std::min<std::size_t>(kMinClusters, clusters.size());
    std::vector<std::size_t> drawn;
    for (int attempt = 0; attempt < 100; ++attempt) {
      drawn.clear();
      for (std::size_t k = 0; k < clusters.size(); ++k) drawn.push_back(pick(rng));
      std::vector<std::size_t> distinct = drawn;
      std::sort(distinct.begin(), distinct.end());
      if (static_cast<std::size_t>(std::unique(distinct.begin(), distinct.end()) - distinct.begin()) >= wanted) break;
    }
    for (auto k : drawn) {
      for (auto c : *clusters[k]) out.push_back(configs[c]);
    }
    return out;
  }
  for (const auto& [key, family] : plan.families) {
    const std::vector<std::uint64_t>& seeds = family.seeds;
    std::mt19937_64 rng = keyed_generator(stream, paired ? std::string() : group, key, seeds);
    std::uniform_int_distribution<std::size_t> pick(0, seeds.size() - 1);
    std::vector<std::uint64_t> drawn;
    for (std::size_t k = 0; k < seeds.size(); ++k) drawn.push_back(seeds[pick(rng)]);
    for (auto c : family.members) {
      const Configuration& config = configs[c];
      std::vector<double> losses;
      for (const std::uint64_t seed : drawn) {
        const auto it = std::find_if(config.rows.begin(), config.rows.end(),
                                     [&](std::size_t i) { return rows[i].seed == seed; });
        if (it != config.rows.end()) losses.push_back(spread(rows[*it].loss, config));
      }
      if (losses.size() != drawn.size()) {  // the configuration lacks some of its family's seeds: its own draw
        losses.clear();
        std::mt19937_64 own = keyed_generator(stream, group, config.values, {});
        std::uniform_int_distribution<std::size_t> own_pick(0, config.rows.size() - 1);
        for (std::size_t k = 0; k < config.rows.size(); ++k) {
          losses.push_back(spread(rows[config.rows[own_pick(own)]].loss, config));
        }
      }
      double sum = 0.0;
      for (double l : losses) sum += l;
      Configuration drawn_config = config;
      drawn_config.mean_loss = sum / static_cast<double>(losses.size());
      out.push_back(std::move(drawn_config));
    }
  }
  return out;
}

bool positive_finite(double v) { return v > 0.0 && std::isfinite(v); }

// The interval of draws around an estimate, widened by `factor` on the parameter's own scale.
Interval interval_of(std::vector<double> draws, double estimate, double factor, bool log_scale, double confidence) {
  if (log_scale) return log_scale_interval(std::move(draws), estimate, factor, confidence);
  if (draws.size() < 2 || !std::isfinite(factor)) return {kNaN, kNaN};
  return expand_interval(estimate, percentile_interval(std::move(draws), confidence), factor);
}

// The fit without the rows at the largest value of the family's first variable, predicting them.
void hold_out_largest(const LawForm& form, const std::vector<LawRow>& rows, const LawFormSettings& settings,
                      LawFormGroupFit& out) {
  const std::size_t size = form.family.front();
  std::vector<double> values;
  for (const auto& r : rows) values.push_back(r.values[size]);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() < 4) return;  // 3 sizes below the one held out, as the built-in laws ask
  std::vector<LawRow> kept, held;
  for (const auto& r : rows) (r.values[size] == values.back() ? held : kept).push_back(r);
  const std::vector<Configuration> configs = configurations(kept);
  // The law fitted below the largest size must be identified there: 3 sizes and as many configurations as it has
  // free parameters, the built-in laws' rule (core/scaling/fit_runs.cpp, not_enough_sizes: n needs 3 sizes below
  // the one held out, chinchilla 3 sizes and 5 configurations). With fewer a form "checks" itself on a fit that
  // any point agrees with, and a comparison would prefer it over a built-in that declined.
  if (configs.size() < form.parameters.size()) return;
  out.holdout_value = values.back();
  std::string source;
  const Solved fit = fit_at_noise(form, points_of(configs), log_scatter(kept, configs), settings, source);
  const LbfgsResult* best = fit.starts.best();
  if (best == nullptr || !std::isfinite(best->cost)) return;
  const std::vector<double> theta = parameters_of(form, best->x);
  double error = 0.0;
  for (const auto& r : held) error += std::abs(law_form_loss(form, theta, r.values) - r.loss) / r.loss;
  out.holdout_runs = static_cast<int>(held.size());
  out.holdout_error = error / static_cast<double>(held.size());
}

LawFormGroupFit fit_group(const LawForm& form, const std::vector<LawRow>& rows, const std::string& group,
                          bool paired, const LawFormSettings& settings) {
  LawFormGroupFit out;
  out.group = group;
  out.rows = static_cast<int>(rows.size());
  const std::vector<Configuration> configs = configurations(rows);
  out.configurations = static_cast<int>(configs.size());
  const Points points = points_of(configs);
  Solved full = fit_at_noise(form, points, log_scatter(rows, configs), settings, out.delta_source);
  out.starts = static_cast<int>(form.start_count());
  out.starts_converged = full.starts.converged;
  out.huber_delta = full.delta;
  const LbfgsResult* best = full.starts.best();
  if (best == nullptr || !std::isfinite(best->cost)) {
    std::vector<double> first;
    for (const auto& p : form.parameters) first.push_back(p.starts.front());
    throw std::invalid_argument("law " + form.name + (group.empty() ? "" : ", group " + group) +
                                ": the loss is not a finite positive number at any start (at the first start it is " +
                                std::to_string(law_form_value(form, first, configs.front().values)) +
                                " for the first configuration); check the expression and the parameters' starts");
  }
  out.parameters = parameters_of(form, best->x);
  out.objective = best->cost;
  out.converged = best->converged;
  out.termination = best->message;
  for (std::size_t i = 0; i < points.y.size(); ++i) {
    const double r = std::log(law_form_loss(form, out.parameters, points.x[i])) - points.y[i];
    out.residual_sum_of_squares += r * r;
  }
  out.holdout_error = kNaN;
  if (settings.holdout_largest) hold_out_largest(form, rows, settings, out);
  for (const std::string& name : settings.profile) {
    const auto at = std::find_if(form.parameters.begin(), form.parameters.end(),
                                 [&](const LawParameter& p) { return p.name == name; });
    const auto index = static_cast<std::size_t>(at - form.parameters.begin());
    if (auto profile = profile_law_parameter(form, points, full.delta, best->x, best->cost, index,
                                             settings.confidence, settings.max_iterations)) {
      out.profiles.push_back(std::move(*profile));
    }
  }

  std::vector<std::vector<double>> draws(static_cast<std::size_t>(settings.bootstrap));
  const Resampling plan = resampling_of(form, rows, configs);
  if (settings.bootstrap > 0 && configs.size() >= 2) {
    std::string family;
    for (auto index : form.family) family += (family.empty() ? "" : ", ") + form.variables[index];
    out.resampling = plan.seeds ? "seeds within run families (" + family + ")" : "clusters of " + family;
    out.paired = plan.seeds && paired;
    if (out.paired) out.resampling += ", drawn alike for every group";
    out.degrees_of_freedom = plan.seeds ? plan.degrees_of_freedom : 0.0;
    parallel_for(settings.bootstrap, settings.threads, [&](int b) {
      const std::vector<Configuration> sample =
          resample(rows, configs, plan, group, paired, resample_seed(settings.seed, static_cast<std::uint64_t>(b)));
      const Solved refit = solve(form, points_of(sample), full.starts.best_optima, full.delta, settings, 1);
      const LbfgsResult* r = refit.starts.best();
      if (r != nullptr && std::isfinite(r->cost)) draws[static_cast<std::size_t>(b)] = parameters_of(form, r->x);
    });
  }
  out.draws = static_cast<int>(std::count_if(draws.begin(), draws.end(), [](const auto& d) { return !d.empty(); }));
  out.parameter_draws = std::move(draws);
  const double factor = plan.seeds ? small_sample_expansion(plan.degrees_of_freedom, settings.confidence) : 1.0;
  for (std::size_t k = 0; k < form.parameters.size(); ++k) {
    const LawParameter& p = form.parameters[k];
    LawFormEstimate e;
    e.name = p.name;
    e.value = out.parameters[k];
    std::vector<double> values;
    for (const auto& d : out.parameter_draws) {
      if (!d.empty()) values.push_back(d[k]);
    }
    e.interval = interval_of(values, e.value, factor, p.scale == ParameterScale::kLog, settings.confidence);
    e.at_bound = p.at_bound(e.value);
    if (std::isfinite(e.interval.lo)) {
      e.interval_at_bound = p.at_bound(std::clamp(e.interval.lo, p.lower, p.upper)) ||
                            p.at_bound(std::clamp(e.interval.hi, p.lower, p.upper)) || e.interval.lo <= p.lower ||
                            e.interval.hi >= p.upper;
      const double lo = e.interval.lo, hi = e.interval.hi;
      e.wide = (lo > 0 && hi / lo > 4.0) || (hi < 0 && lo / hi > 4.0) || (lo <= 0 && hi >= 0 && e.value != 0.0);
    }
    out.estimates.push_back(std::move(e));
  }
  return out;
}

// --predict's rows, as the built-in laws' (fit_runs.cpp): at most kMaxPredictRows (each is predicted by every
// bootstrap refit), each of a group the runs have, or of none (then predicted by the one group's law).
void validate_predict_rows(const LawForm& form, const LawRows& rows, const LawRows& predict) {
  if (predict.rows.size() > kMaxPredictRows) {
    throw std::invalid_argument("fit --predict: " + std::to_string(predict.rows.size()) + " rows, more than the " +
                                "limit of " + std::to_string(kMaxPredictRows));
  }
  if (predict.variables != form.variables) throw std::invalid_argument("law " + form.name + ": rows of other variables");
  for (const LawRow& row : predict.rows) {
    const bool known = std::any_of(rows.rows.begin(), rows.rows.end(), [&](const LawRow& r) { return r.group == row.group; });
    if (!row.group.empty() && !known) {
      throw std::invalid_argument("fit --predict: a row of group '" + row.group + "', which the runs do not have");
    }
  }
}

// Pairs across groups (core/scaling/pairing.h, for any law): two or more groups, every row seeded, every group
// with the same families, and in each family the same seeds in every group: runs of one seed share their data
// order and initial weights whatever their group.
bool seeds_paired(const LawForm& form, const std::vector<LawRow>& rows) {
  std::map<std::vector<double>, std::map<std::string, std::vector<std::uint64_t>>> seeds;  // family -> group -> seeds
  std::vector<std::string> groups;
  for (const LawRow& r : rows) {
    if (!r.seed) return false;
    seeds[family_key(form, r.values)][r.group].push_back(*r.seed);
    if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
  }
  if (groups.size() < 2) return false;
  for (auto& [key, by_group] : seeds) {
    if (by_group.size() != groups.size()) return false;
    for (auto& [group, list] : by_group) {
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    for (const auto& [group, list] : by_group) {
      if (list != by_group.begin()->second) return false;
    }
  }
  return true;
}

}  // namespace

LawFormReport fit_law_form(const LawForm& form, const LawRows& rows, const LawFormSettings& given,
                           const LawRows* predict) {
  if (rows.variables != form.variables) throw std::invalid_argument("law " + form.name + ": rows of other variables");
  LawFormSettings settings = given;
  for (const std::string& name : settings.profile) {
    const bool known = std::any_of(form.parameters.begin(), form.parameters.end(),
                                   [&](const LawParameter& p) { return p.name == name; });
    if (!known) {
      std::string names;
      for (const auto& p : form.parameters) names += (names.empty() ? "" : ", ") + p.name;
      throw std::invalid_argument("--profile " + name + ": not a parameter of law " + form.name + " (" + names + ")");
    }
  }
  if (form.huber_delta && !settings.delta_given) {
    settings.huber_delta = *form.huber_delta;
    settings.delta_given = true;
  }
  if (predict != nullptr) validate_predict_rows(form, rows, *predict);
  std::vector<LawRow> sorted = rows.rows;
  for (const auto& r : sorted) {
    if (!positive_finite(r.loss)) throw std::invalid_argument("law " + form.name + ": a row's loss is not positive");
  }
  std::sort(sorted.begin(), sorted.end(), row_before);
  LawFormReport report;
  report.law = form.name;
  report.source = form.source;
  report.variables = form.variables;
  report.family_variable = form.family.front();
  for (const auto& p : form.parameters) report.parameters.push_back(p.name);
  report.expression = form.loss.text();
  report.confidence = settings.confidence;
  report.bootstrap = settings.bootstrap;
  report.seed = settings.seed;
  const bool paired = seeds_paired(form, sorted);
  for (std::size_t begin = 0; begin < sorted.size();) {
    std::size_t end = begin;
    while (end < sorted.size() && sorted[end].group == sorted[begin].group) ++end;
    const std::vector<LawRow> group(sorted.begin() + static_cast<std::ptrdiff_t>(begin),
                                    sorted.begin() + static_cast<std::ptrdiff_t>(end));
    report.groups.push_back(fit_group(form, group, sorted[begin].group, paired, settings));
    begin = end;
  }
  report.frontier = law_frontier(form);
  report.multipliers =
      law_form_multipliers(form, rows, report.groups, settings.baseline, settings.budgets, settings.confidence);
  if (predict != nullptr) {
    for (const LawRow& row : predict->rows) {
      LawFormPrediction p;
      p.group = row.group;
      p.label = row.label;
      p.values = row.values;
      p.loss = row.loss;
      p.predicted = kNaN;
      p.interval = {kNaN, kNaN};
      const auto fit = std::find_if(report.groups.begin(), report.groups.end(), [&](const LawFormGroupFit& g) {
        return g.group == row.group || (row.group.empty() && report.groups.size() == 1);
      });
      if (fit != report.groups.end()) {
        if (p.group.empty()) p.group = fit->group;
        p.predicted = law_form_loss(form, fit->parameters, row.values);
        std::vector<double> draws;
        for (const auto& d : fit->parameter_draws) {
          if (!d.empty()) draws.push_back(law_form_loss(form, d, row.values));
        }
        const double factor = fit->degrees_of_freedom > 0
                                  ? small_sample_expansion(fit->degrees_of_freedom, settings.confidence)
                                  : 1.0;
        if (positive_finite(p.predicted)) p.interval = interval_of(draws, p.predicted, factor, true, settings.confidence);
      }
      report.predictions.push_back(std::move(p));
    }
  }
  return report;
}

namespace {

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json interval_json(const Interval& i) { return {number_or_null(i.lo), number_or_null(i.hi)}; }

nlohmann::json profiles_json(const std::vector<LawFormProfile>& profiles) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : profiles) {
    out.push_back({{"parameter", p.parameter},
                   {"range", {number_or_null(p.lo), number_or_null(p.hi)}},
                   {"open_lo", p.open_lo},
                   {"open_hi", p.open_hi},
                   {"tolerance", p.tolerance}});
  }
  return out;
}

}  // namespace

nlohmann::json to_json(const LawFormReport& report) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : report.groups) {
    nlohmann::json estimates = nlohmann::json::array();
    for (const auto& e : g.estimates) {
      estimates.push_back({{"name", e.name},
                           {"value", number_or_null(e.value)},
                           {"interval", interval_json(e.interval)},
                           {"at_bound", e.at_bound},
                           {"interval_at_bound", e.interval_at_bound},
                           {"wide", e.wide}});
    }
    groups.push_back({{"group", g.group},
                      {"rows", g.rows},
                      {"configurations", g.configurations},
                      {"parameters", std::move(estimates)},
                      {"objective", number_or_null(g.objective)},
                      {"huber_delta", g.huber_delta},
                      {"delta_source", g.delta_source},
                      {"starts", g.starts},
                      {"starts_converged", g.starts_converged},
                      {"converged", g.converged},
                      {"termination", g.termination},
                      {"resampling", g.resampling},
                      {"paired", g.paired},
                      {"degrees_of_freedom", g.degrees_of_freedom},
                      {"draws", g.draws},
                      {"residual_sum_of_squares", number_or_null(g.residual_sum_of_squares)},
                      {"profiles", profiles_json(g.profiles)},
                      {"holdout", g.holdout_runs > 0 ? nlohmann::json{{"value", g.holdout_value},
                                                                       {"runs", g.holdout_runs},
                                                                       {"mean_abs_relative_error",
                                                                        number_or_null(g.holdout_error)}}
                                                     : nlohmann::json(nullptr)}});
  }
  nlohmann::json predictions = nlohmann::json::array();
  for (const auto& p : report.predictions) {
    predictions.push_back({{"group", p.group},
                           {"label", p.label},
                           {"values", p.values},
                           {"loss", number_or_null(p.loss)},
                           {"predicted", number_or_null(p.predicted)},
                           {"interval", interval_json(p.interval)}});
  }
  nlohmann::json multipliers = nlohmann::json::array();
  for (const auto& m : report.multipliers) {
    multipliers.push_back({{"group", m.group},
                           {"baseline", m.baseline},
                           {"budget", m.budget},
                           {"value", std::isinf(m.value) ? nlohmann::json("unreachable") : number_or_null(m.value)},
                           {"interval", interval_json(m.interval)},
                           {"draws", m.draws}});
  }
  return {{"law", report.law},
          {"source", report.source},
          {"variables", report.variables},
          {"loss", report.expression},
          {"confidence", report.confidence},
          {"bootstrap", report.bootstrap},
          {"seed", report.seed},
          {"groups", std::move(groups)},
          {"predictions", std::move(predictions)},
          {"frontier", report.frontier == LawFrontier::kComputeOptimal ? "compute-optimal"
                       : report.frontier == LawFrontier::kCompute      ? "compute"
                       : report.frontier == LawFrontier::kParams       ? "params"
                                                                        : "none"},
          {"multipliers", std::move(multipliers)}};
}

}  // namespace gammalab
