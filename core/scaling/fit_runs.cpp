#include "core/scaling/fit_runs.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "core/decimal_text.h"
#include "core/scaling/bootstrap.h"
#include "core/scaling/comparison.h"
#include "core/scaling/compute_multiplier.h"
#include "core/scaling/fit_parallel.h"
#include "core/scaling/fit.h"
#include "core/scaling/frontier.h"
#include "core/scaling/identification.h"
#include "core/scaling/profile.h"
#include "core/scaling/replicates.h"
#include "core/scaling/run_order.h"

namespace gammalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

void validate(const std::vector<RunPoint>& runs) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    auto positive = [&](double v, const char* what) {
      if (!(v > 0.0) || !std::isfinite(v)) {
        throw std::invalid_argument("fit: run " + std::to_string(i) + (r.label.empty() ? "" : " (" + r.label + ")") +
                                    ": " + what + " must be positive and finite");
      }
    };
    positive(r.params, "params");
    positive(r.tokens, "tokens");
    positive(r.loss, "loss");
    if (r.compute != 0.0) positive(r.compute, "compute");
  }
}

struct ComputeRange {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0.0;
  bool contains(double c) const { return c >= lo * (1.0 - 1e-9) && c <= hi * (1.0 + 1e-9); }
};

ComputeRange compute_range(const std::vector<RunPoint>& runs) {
  ComputeRange range;
  for (const auto& r : runs) {
    range.lo = std::min(range.lo, run_compute(r));
    range.hi = std::max(range.hi, run_compute(r));
  }
  return range;
}

ComputeRange common_range(const ComputeRange& a, const ComputeRange& b) {
  return {std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
}

std::vector<double> default_budgets(const ComputeRange& range) { return decade_budgets(range.lo, range.hi); }

int parameters_of(LawKind kind) { return kind == LawKind::chinchilla ? 5 : kind == LawKind::isoflop ? 2 : 3; }

// The same flat list of tracked quantities is built for the full fit and for every resample, so that the
// bootstrap distribution of element j belongs to the estimate in element j.
struct Layout {
  std::vector<std::vector<std::string>> group_names;  // parameters then derived, per group
  std::vector<std::size_t> variants;                  // group indices with a multiplier over the baseline
  std::size_t baseline = 0;
  std::vector<double> budgets;
  bool shared = false;  // law c: joint fits with common E and alpha per variant
  std::vector<ComparisonPlan> comparisons;  // law-free, per variant
};

// `design_kept`: the runs keep every cell (all data, or a resample of seeds), so the comparisons' cell means
// exist; a resample of model sizes does not, and gives them no values.
std::vector<double> collect(const Layout& layout, const std::vector<LawFit>& fits, const std::vector<LawFit>& shared,
                            const std::vector<RunPoint>& runs, bool design_kept) {
  std::vector<double> flat;
  for (const auto& plan : layout.comparisons) {
    const std::vector<double> values =
        design_kept ? comparison_values(plan, runs) : std::vector<double>(comparison_value_count(plan), kNaN);
    flat.insert(flat.end(), values.begin(), values.end());
  }
  for (std::size_t g = 0; g < fits.size(); ++g) {
    for (const auto& name : layout.group_names[g]) flat.push_back(fit_value(fits[g], name));
  }
  const auto base = frontier_law(fits[layout.baseline]);
  for (std::size_t v = 0; v < layout.variants.size(); ++v) {
    const auto var = frontier_law(fits[layout.variants[v]]);
    for (double c : layout.budgets) flat.push_back(base && var ? compute_multiplier(*base, *var, c) : kNaN);
    if (layout.shared) {
      const auto& t = shared[v].theta;
      flat.insert(flat.end(), {std::exp(t[0]), t[1], std::exp(t[2]), std::exp(t[3]),
                               t[1] > 0.0 ? constant_multiplier(std::exp(t[2]), std::exp(t[3]), t[1]) : kNaN});
    }
  }
  return flat;
}

// The x of a group's pointwise band (GroupFit::band), as runs to predict: kBandPoints log-spaced values from a
// third below the group's smallest N (C for law c) to half again its largest, the range the dashboard draws a
// law over; laws n and chinchilla at the group's median tokens per parameter, as the dashboard draws them.
std::vector<RunPoint> band_grid(LawKind law, const std::vector<RunPoint>& runs) {
  std::vector<double> xs, ratios;
  for (const auto& r : runs) {
    xs.push_back(law == LawKind::c ? run_compute(r) : r.params);
    if (r.params > 0.0) ratios.push_back(r.tokens / r.params);
  }
  if (law == LawKind::isoflop || xs.empty() || ratios.empty()) return {};
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  if (!(*lo > 0.0) || !std::isfinite(*hi)) return {};
  std::sort(ratios.begin(), ratios.end());
  const std::size_t mid = ratios.size() / 2;
  const double ratio = ratios.size() % 2 ? ratios[mid] : 0.5 * (ratios[mid - 1] + ratios[mid]);
  const double a = std::log(*lo / 1.5), z = std::log(*hi * 1.5);
  std::vector<RunPoint> grid;
  for (int k = 0; k < kBandPoints; ++k) {
    const double x = std::exp(a + (z - a) * k / (kBandPoints - 1));
    RunPoint at;
    if (law == LawKind::c) {
      at.compute = x;
    } else {
      at.params = x;
      at.tokens = ratio * x;
    }
    grid.push_back(at);
  }
  return grid;
}

double smallest_loss(const std::vector<RunPoint>& runs) {
  double smallest = std::numeric_limits<double>::infinity();
  for (const auto& r : runs) smallest = std::min(smallest, r.loss);
  return smallest;
}

// Estimates at the edge of their domain lose their interval (core/scaling/identification.h), and say so.
void mark_unidentified(std::vector<Estimate>& list, double smallest, const std::string& where,
                       std::vector<std::string>& warnings) {
  for (std::string_view name : mark_at_bound(list, smallest)) {
    warnings.push_back(where + ": " + std::string(name) + " not identified (at bound): the data put no limit on it "
                       "from that side, and no interval is given");
  }
}

std::vector<RunPoint> select(const std::vector<RunPoint>& runs, const std::string& group) {
  std::vector<RunPoint> out;
  for (const auto& r : runs) {
    if (r.group == group) out.push_back(r);
  }
  return out;
}

// The compute frontier of the configurations' means: what law c and the shared fit see (fit.h: law_points).
std::vector<RunPoint> mean_frontier(const std::vector<RunPoint>& runs) {
  return compute_frontier(configuration_means(runs));
}

// Frontiers of the baseline and a variant, stacked, with the group index of each point (0 = baseline). Delta
// scaled to the noise as settings say (the full fit), or as it is (bootstrap refits at the full fit's delta).
LawFit fit_shared(const std::vector<RunPoint>& base, const std::vector<RunPoint>& variant, const FitSettings& settings,
                  const std::vector<std::vector<double>>& starts, int threads) {
  std::vector<RunPoint> points = mean_frontier(base);
  std::vector<int> group_of(points.size(), 0);
  for (const auto& r : mean_frontier(variant)) {
    points.push_back(r);
    group_of.push_back(1);
  }
  const LseDesign design = shared_frontier_design(points, group_of, 2);
  std::vector<RunPoint> both = base;
  both.insert(both.end(), variant.begin(), variant.end());
  LawFit fit = minimise_at_noise(design, starts, settings, mean_log_scatter(both), threads);
  fit.kind = LawKind::c;
  return fit;
}

// The settings of a bootstrap refit: the full fit's delta, not rescaled to each resample's residuals.
FitSettings at_delta_of(const FitSettings& settings, const LawFit& full) {
  FitSettings fixed = settings;
  fixed.huber_delta = full.huber_delta > 0.0 ? full.huber_delta : settings.huber_delta;
  fixed.scale_delta = false;
  return fixed;
}

HoldoutCheck holdout_check(LawKind law, const std::vector<RunPoint>& runs, double largest, const FitSettings& settings) {
  HoldoutCheck check;
  check.held_out_params = largest;
  std::vector<RunPoint> train, test;
  for (const auto& r : runs) (r.params >= largest * (1.0 - 1e-9) ? test : train).push_back(r);
  if (law == LawKind::c) {
    // L(C) describes the frontier; only held-out runs on the frontier of all runs are predictions of it.
    const auto frontier = compute_frontier(runs);
    std::vector<RunPoint> on_frontier;
    for (const auto& r : test) {
      for (const auto& f : frontier) {
        if (f.params == r.params && f.tokens == r.tokens && f.loss == r.loss && f.compute == r.compute) {
          on_frontier.push_back(r);
          break;
        }
      }
    }
    test = std::move(on_frontier);
  }
  check.fit = fit_law(law, train, settings);
  double sum = 0.0;
  for (const auto& r : test) {
    const double predicted = predict_loss(check.fit, r);
    const double rel = (predicted - r.loss) / r.loss;
    check.runs.push_back({r, predicted, rel});
    sum += std::abs(rel);
    check.max_abs_relative_error = std::max(check.max_abs_relative_error, std::abs(rel));
  }
  check.mean_abs_relative_error = test.empty() ? kNaN : sum / static_cast<double>(test.size());
  return check;
}

// The runs, those without a group in the group "all".
std::vector<RunPoint> with_groups(const std::vector<RunPoint>& input) {
  std::vector<RunPoint> runs = input;
  for (auto& r : runs) {
    if (r.group.empty()) r.group = "all";
  }
  return runs;
}

// The rows of FitOptions::predict a group's law predicts: those naming it, and those naming none.
std::vector<RunPoint> predict_rows(const FitOptions& options, const std::string& group) {
  std::vector<RunPoint> rows;
  for (const RunPoint& row : options.predict) {
    if (row.group.empty() || row.group == group) rows.push_back(row);
  }
  return rows;
}

// Groups in order of first appearance (in the canonical order: by name), the baseline first.
std::vector<std::string> group_names(const std::vector<RunPoint>& runs, const std::string& baseline) {
  std::vector<std::string> names;
  for (const auto& r : runs) {
    if (std::find(names.begin(), names.end(), r.group) == names.end()) names.push_back(r.group);
  }
  const auto base_it = std::find(names.begin(), names.end(), baseline);
  if (base_it != names.end()) std::rotate(names.begin(), base_it, base_it + 1);
  return names;
}

// A figure in a warning, to the digits it supports: "11.4", "1.26".
std::string rounded(double v, int significant) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.*g", significant, v);
  return buffer;
}

const GroupFit* group_named(const FitReport& report, const std::string& name) {
  for (const auto& g : report.groups) {
    if (g.group == name) return &g;
  }
  return nullptr;
}

// A law that misses the largest size by more than the effect cannot carry that effect: said as a warning here
// and in the verdict.
void check_holdout_against_effect(FitReport& report, Comparison& c) {
  for (const std::string& name : {c.baseline, c.variant}) {
    const GroupFit* g = group_named(report, name);
    if (!g || !g->holdout || g->holdout->runs.empty()) continue;
    // The error of the size's mean, not of single runs: a run's own seed noise is no failure of the law.
    double mean = 0.0;
    for (const auto& run : g->holdout->runs) mean += run.relative_error / static_cast<double>(g->holdout->runs.size());
    c.holdout_error = std::isnan(c.holdout_error) ? std::abs(mean) : std::max(c.holdout_error, std::abs(mean));
  }
  if (!c.holdout_exceeds_effect()) return;
  report.warnings.push_back(c.variant + " over " + c.baseline + ": the laws miss the largest size's mean loss by up " +
                            "to " + rounded(100.0 * c.holdout_error, 3) +
                            "% predicting it from the others, more than the " +
                            rounded(100.0 * c.relative_effect, 3) +
                            "% difference being measured: a law-based multiplier rests on extrapolation the data do "
                            "not support; the paired gaps and the local multiplier do not");
}

// --predict's rows: a law that predicts losses, and groups the runs have.
void validate_predict_rows(const std::vector<RunPoint>& input, const FitOptions& options) {
  if (options.predict.empty()) return;
  if (options.law == LawKind::isoflop) throw std::invalid_argument("fit --predict: the isoflop law predicts no losses");
  if (options.predict.size() > kMaxPredictRows) {
    throw std::invalid_argument("fit --predict: " + std::to_string(options.predict.size()) + " rows, more than the " +
                                "limit of " + std::to_string(kMaxPredictRows));
  }
  const std::vector<RunPoint> runs = with_groups(input);
  for (std::size_t i = 0; i < options.predict.size(); ++i) {
    const RunPoint& row = options.predict[i];
    if (!(row.params > 0.0) || !(row.tokens > 0.0) || !std::isfinite(row.params) || !std::isfinite(row.tokens)) {
      throw std::invalid_argument("fit --predict: row " + std::to_string(i + 1) + ": params and tokens must be positive");
    }
    if (!row.group.empty() && std::none_of(runs.begin(), runs.end(), [&](const RunPoint& r) { return r.group == row.group; })) {
      throw std::invalid_argument("fit --predict: row " + std::to_string(i + 1) + " names group '" + row.group +
                                  "', which no run has");
    }
  }
}

}  // namespace

std::optional<std::string> not_enough_sizes(const std::vector<RunPoint>& input, const FitOptions& options) {
  if (input.empty()) return "fit: no runs";
  std::vector<RunPoint> runs = with_groups(input);
  put_in_canonical_order(runs);  // which group a message names first does not depend on the input's order
  const LawKind law = options.law.value_or(default_law(runs));
  const std::string law_text = "law " + std::string(law_name(law));
  for (const auto& name : group_names(runs, options.baseline)) {
    const std::vector<RunPoint> group = select(runs, name);
    const int sizes = count_model_sizes(group);
    const std::string has = "fit: group '" + name + "' has " + std::to_string(group.size()) + " run" +
                            (group.size() == 1 ? "" : "s") + " at " + std::to_string(sizes) + " distinct model size" +
                            (sizes == 1 ? "" : "s");
    switch (law) {
      case LawKind::n:
        if (sizes < 3) return has + "; " + law_text + " has 3 free parameters (E, A, alpha) and needs runs at 3 or more distinct sizes";
        break;
      case LawKind::c: {
        const auto levels = replicate_cells(compute_frontier(group)).size();
        if (levels < 3) {
          return has + " and " + std::to_string(levels) + " compute level" + (levels == 1 ? "" : "s") +
                 " on its frontier; " + law_text +
                 " has 3 free parameters (E, A, alpha) and needs 3 or more compute levels on the frontier";
        }
        break;
      }
      case LawKind::chinchilla: {
        const auto configs = replicate_cells(group).size();
        if (sizes < 3 || configs < 5) {
          return has + " and " + std::to_string(configs) + " distinct (N, D) configurations; " + law_text +
                 " has 5 free parameters (E, A, alpha, B, beta) and needs 3 or more sizes and 5 or more (N, D)"
                 " configurations";
        }
        break;
      }
      case LawKind::isoflop:
        if (sizes < 3) return has + "; " + law_text + " needs 3 or more sizes at each of 2 or more budgets";
        break;
    }
  }
  return std::nullopt;
}

namespace {

// One fit_runs call's working state, filled by its steps in order.
struct Fitting {
  Fitting(const FitOptions& o, LawKind l, std::vector<RunPoint> r) : options(o), law(l), runs(std::move(r)) {}
  const FitOptions& options;
  LawKind law;
  std::vector<RunPoint> runs;                     // every run, with its group
  std::vector<std::string> names;                 // the groups, the baseline first when present
  std::vector<std::vector<RunPoint>> group_runs;  // per group
  std::vector<LawFit> fits;                       // per group, on all its runs
  std::vector<LawFit> shared;                     // law c: per variant, the joint fit with the baseline
  Layout layout;
  std::vector<ComputeRange> ranges;  // per group: the compute its runs cover
  std::vector<ReplicateCell> cells;
  Pairing pairing;
  bool has_baseline = false;
};

// The bootstrap's draws: one resample = one draw of seeds within each size (the same seeds for every group when
// the runs pair up), or of model sizes shared by all groups; every law refitted from the best optima of its full
// fit.
struct Resamples {
  std::vector<std::vector<double>> draws;  // per resample, collect()'s values
  std::vector<char> usable;                // per resample: every law came out finite
  // The pointwise band's x per group, and each resample's predicted loss at each of them.
  std::vector<std::vector<RunPoint>> band_at;
  std::vector<std::vector<std::vector<double>>> band_draws;
  // FitOptions::predict's rows per group, and each resample's prediction of each.
  std::vector<std::vector<RunPoint>> predict_at;
  std::vector<std::vector<std::vector<double>>> predict_draws;
  bool by_seed = false, paired = false;
  std::vector<std::string> frozen;  // groups whose sizes cannot be redrawn: then no resample at all
};

// Each group's law on all its runs, its sizes and what its fit warns of.
void fit_groups(Fitting& f, FitReport& report) {
  for (std::size_t g = 0; g < f.names.size(); ++g) {
    f.fits.push_back(fit_law(f.law, f.group_runs[g], f.options.settings));
    GroupFit group;
    group.group = f.names[g];
    group.runs = static_cast<int>(f.group_runs[g].size());
    group.model_sizes = count_model_sizes(f.group_runs[g]);
    for (const auto& cell : replicate_cells(f.group_runs[g])) group.sizes.push_back(summarise(cell, f.group_runs[g]));
    group.fit = f.fits.back();
    std::vector<std::string> keys;
    for (const auto& v : f.fits.back().parameters) keys.push_back(v.name);
    for (const auto& v : f.fits.back().derived) keys.push_back(v.name);
    f.layout.group_names.push_back(keys);
    if (!f.fits.back().converged) {
      report.warnings.push_back("group '" + f.names[g] + "': best start did not converge (" +
                                f.fits.back().termination + ")");
    }
    if (f.law == LawKind::c && f.fits.back().points < 3) {
      report.warnings.push_back("group '" + f.names[g] + "': only " + std::to_string(f.fits.back().points) +
                                " frontier points for 3 parameters");
    }
    if (group.model_sizes < 3 && f.law != LawKind::isoflop) {
      report.warnings.push_back("group '" + f.names[g] + "': fewer than 3 model sizes; exponents are not identified");
    }
    report.groups.push_back(std::move(group));
  }
}

// What the report compares: the variants with a multiplier over the baseline and the budgets they are read at
// (throws for an explicit budget outside a pair's range, unless asked to extrapolate), law c's joint fits, and
// the law-free comparisons of each variant (and of each control) on the paired runs.
void plan_comparisons(Fitting& f, FitReport& report) {
  const FitOptions& options = f.options;
  const bool has_frontier = f.law == LawKind::c || f.law == LawKind::chinchilla;
  if (has_frontier && f.has_baseline) {
    for (std::size_t g = 1; g < f.names.size(); ++g) f.layout.variants.push_back(g);
  } else if (has_frontier && f.names.size() > 1) {
    report.warnings.push_back("baseline group '" + options.baseline + "' not found: no multipliers");
  } else if (f.names.size() > 1) {
    report.warnings.push_back("law " + std::string(law_name(f.law)) +
                              " has no compute frontier: multipliers need law c or chinchilla");
  }
  // Budgets inside the compute range every group's runs cover, unless asked for explicitly; an explicit budget
  // outside a pair's range needs `extrapolate`.
  for (const auto& part : f.group_runs) f.ranges.push_back(compute_range(part));
  ComputeRange everywhere = f.ranges[0];
  for (const auto& range : f.ranges) everywhere = common_range(everywhere, range);
  f.layout.budgets = options.budgets.empty() ? default_budgets(everywhere) : options.budgets;
  if (!f.layout.variants.empty() && f.layout.budgets.empty()) {
    report.warnings.push_back("the groups' compute ranges do not overlap: no multipliers at budgets");
  }
  for (auto v : f.layout.variants) {
    const ComputeRange pair = common_range(f.ranges[0], f.ranges[v]);
    for (double c : f.layout.budgets) {
      if (pair.contains(c) || options.extrapolate) continue;
      throw std::invalid_argument("fit: budget C=" + number_text(c) + " lies outside the compute range [" +
                                  number_text(pair.lo) + ", " + number_text(pair.hi) + "] that the runs of '" +
                                  f.names[0] + "' and '" + f.names[v] +
                                  "' both cover; a multiplier there extrapolates the laws (pass --extrapolate to "
                                  "report it, marked as extrapolation)");
    }
  }
  f.layout.shared = f.law == LawKind::c;
  for (auto v : f.layout.variants) {
    if (!f.layout.shared) break;
    f.shared.push_back(fit_shared(f.group_runs[0], f.group_runs[v], options.settings,
                                  start_grid(options.settings, 1, 2), options.settings.threads));
  }
  f.cells = replicate_cells(f.runs);
  f.pairing = pair_cells(f.runs, f.cells, f.names);
  if (!f.has_baseline) return;
  for (std::size_t g = 1; g < f.names.size(); ++g) {
    f.layout.comparisons.push_back(plan_comparison(f.runs, f.cells, f.pairing, f.names, g));
  }
  std::set<std::size_t> references;  // a control named twice is compared once
  for (const std::string& control : options.controls) {
    const auto at = std::find(f.names.begin() + 1, f.names.end(), control);
    if (at == f.names.end()) continue;
    const auto reference = static_cast<std::size_t>(at - f.names.begin());
    if (!references.insert(reference).second) continue;
    for (std::size_t g = 1; g < f.names.size(); ++g) {
      if (g != reference) f.layout.comparisons.push_back(plan_comparison(f.runs, f.cells, f.pairing, f.names, g, reference));
    }
  }
}

// The resamples, drawn on the settings' threads, each from its own seed: the same draws whatever the threads.
Resamples bootstrap(const Fitting& f, FitReport& report) {
  const FitSettings& settings = f.options.settings;
  const std::vector<std::string>& names = f.names;
  const std::vector<RunPoint>& runs = f.runs;
  const LawKind law = f.law;
  const int resamples = report.bootstrap_requested;
  Resamples r;
  r.draws.resize(static_cast<std::size_t>(resamples));
  r.usable.assign(static_cast<std::size_t>(resamples), 0);
  r.by_seed = every_cell_replicated(f.cells);
  r.paired = r.by_seed && f.pairing.complete && names.size() > 1;
  report.bootstrap_unit = r.paired ? kResamplePairedSeeds : r.by_seed ? kResampleSeeds : kResampleSizes;
  if (r.by_seed && !r.paired && names.size() > 1) {
    report.warnings.push_back("pairs incomplete (runs without a seed, or seeds a group did not run at a size): the "
                              "bootstrap resamples each group's seeds on its own, and the gaps are unpaired");
  }
  if (!r.by_seed && resamples > 0 && f.cells.size() < runs.size()) {
    report.warnings.push_back("some configurations have a single run: the bootstrap resamples model sizes, not seeds");
  }
  // Without seeds the bootstrap redraws model sizes and keeps at least kMinResampledSizes distinct ones per
  // group, so that the law stays identified. A group with no more sizes than that can only be redrawn as
  // itself: every resample would be the data, and their spread, zero, no interval at all.
  for (std::size_t g = 0; g < names.size() && !r.by_seed && resamples > 0; ++g) {
    if (report.groups[g].model_sizes <= kMinResampledSizes) {
      r.frozen.push_back(names[g] + " (" + std::to_string(report.groups[g].model_sizes) + " sizes)");
    }
  }
  if (!r.frozen.empty()) {
    report.warnings.push_back(
        "no bootstrap interval: one run per configuration, and " + absl::StrJoin(r.frozen, ", ") +
        " has no more than " + std::to_string(kMinResampledSizes) +
        " model sizes, so every resample of sizes would be the data itself; add sizes or seeds");
  }
  r.band_at.resize(names.size());
  for (std::size_t g = 0; g < names.size(); ++g) r.band_at[g] = band_grid(law, f.group_runs[g]);
  r.band_draws.assign(names.size(), std::vector<std::vector<double>>(static_cast<std::size_t>(resamples)));
  r.predict_at.resize(names.size());
  for (std::size_t g = 0; g < names.size(); ++g) r.predict_at[g] = predict_rows(f.options, names[g]);
  r.predict_draws.assign(names.size(), std::vector<std::vector<double>>(static_cast<std::size_t>(resamples)));
  parallel_for(r.frozen.empty() ? resamples : 0, settings.threads, [&](int b) {
    const std::uint64_t stream = resample_seed(f.options.seed, static_cast<std::uint64_t>(b));
    std::vector<RunPoint> sample;
    if (r.paired) {
      sample = resample_paired(runs, f.cells, f.pairing, stream);
    } else if (r.by_seed) {
      sample = resample_within_cells(runs, f.cells, stream);
    } else {
      std::mt19937_64 rng(stream);
      for (auto i : resample_by_model_size(runs, rng, kMinResampledSizes)) sample.push_back(runs[i]);
    }
    std::vector<LawFit> refits;
    std::vector<std::vector<RunPoint>> parts;
    bool ok = true;
    for (std::size_t g = 0; g < names.size(); ++g) {
      parts.push_back(select(sample, names[g]));
      LawFit fit;
      if (static_cast<int>(parts.back().size()) >= parameters_of(law)) {
        fit = fit_law_from(law, parts.back(), at_delta_of(settings, f.fits[g]), f.fits[g].best_optima, 1);
      } else {
        fit.kind = law;
      }
      bool finite = !fit.parameters.empty();
      for (const auto& v : fit.parameters) finite = finite && std::isfinite(v.value);
      ok = ok && finite;
      for (const RunPoint& at : r.band_at[g]) {
        r.band_draws[g][static_cast<std::size_t>(b)].push_back(finite ? predict_loss(fit, at) : kNaN);
      }
      for (const RunPoint& at : r.predict_at[g]) {
        r.predict_draws[g][static_cast<std::size_t>(b)].push_back(finite ? predict_loss(fit, at) : kNaN);
      }
      refits.push_back(std::move(fit));
    }
    std::vector<LawFit> shared_refits;
    for (std::size_t v = 0; v < f.layout.variants.size() && f.layout.shared; ++v) {
      shared_refits.push_back(fit_shared(parts[0], parts[f.layout.variants[v]], at_delta_of(settings, f.shared[v]),
                                         f.shared[v].best_optima, 1));
    }
    r.draws[static_cast<std::size_t>(b)] = collect(f.layout, refits, shared_refits, sample, r.by_seed);
    r.usable[static_cast<std::size_t>(b)] = ok ? 1 : 0;
  });
  report.bootstrap_used = static_cast<int>(std::count(r.usable.begin(), r.usable.end(), 1));
  return r;
}

// The degrees of freedom of the noise behind a law's multiplier of `variant` over the baseline: what the bootstrap
// redrew. Paired seeds: per size, its seeds - 1; each group's seeds: per group and size, its runs - 1; model
// sizes: the sizes - 1. A size's budgets share their runs' seeds (a run family), so they count once.
// The seeds' degrees of freedom of some groups' runs: per group and size, its fewest runs at a budget - 1 (a
// size's budgets share their runs' seeds, a run family, so they count once).
int seed_degrees_of_freedom(const std::vector<ReplicateCell>& cells, const std::set<std::string>& groups) {
  std::map<std::pair<std::string, double>, int> fewest;  // (group, N) -> its fewest runs at a budget
  for (const auto& cell : cells) {
    if (!groups.count(cell.group)) continue;
    const auto [it, fresh] = fewest.try_emplace({cell.group, cell.params}, static_cast<int>(cell.runs.size()));
    if (!fresh) it->second = std::min(it->second, static_cast<int>(cell.runs.size()));
  }
  int df = 0;
  for (const auto& [key, runs] : fewest) df += runs - 1;
  return df;
}

int law_degrees_of_freedom(const Fitting& f, const Resamples& r, std::size_t variant) {
  if (!r.by_seed) return count_model_sizes(f.runs) - 1;
  // Pairs: the baseline's seeds are the variant's.
  if (r.paired) return seed_degrees_of_freedom(f.cells, {f.names[0]});
  return seed_degrees_of_freedom(f.cells, {f.names[0], f.names[variant]});
}

// A multiplier's percentile interval widened on the log scale for few degrees of freedom, as the comparisons'
// are (bootstrap.h: small_sample_expansion): resampling two or three seeds draws their spread, not its
// uncertainty.
Estimate widened_multiplier(Estimate e, int degrees_of_freedom, double confidence) {
  if (!(e.value > 0.0) || !std::isfinite(e.value) || !(e.lo > 0.0) || !(e.hi > 0.0)) return e;
  const Interval wide = expand_interval(std::log(e.value), {std::log(e.lo), std::log(e.hi)},
                                        small_sample_expansion(degrees_of_freedom, confidence));
  e.lo = std::exp(wide.lo);
  e.hi = std::exp(wide.hi);
  return e;
}

// Every estimate with its interval, in collect()'s order: the comparisons, each group's parameters (and its
// band), then each variant's multipliers with law c's joint fit and its profile.
void report_estimates(const Fitting& f, const Resamples& r, const std::vector<double>& point, FitReport& report) {
  const FitOptions& options = f.options;
  const std::vector<std::string>& names = f.names;
  const Layout& layout = f.layout;
  std::size_t cursor = 0;
  // `every_draw`: the law-free comparisons read no law, so a resample whose law fits came out non-finite still
  // counts for them (keeping only resamples where every law converged would tie their intervals to those fits).
  auto estimate = [&](const std::string& name, bool every_draw = false) {
    Estimate e{name, point[cursor], kNaN, kNaN};
    if (report.bootstrap_used > 0 || (every_draw && r.frozen.empty() && report.bootstrap_requested > 0)) {
      std::vector<double> values;
      for (std::size_t b = 0; b < r.draws.size(); ++b) {
        if (r.usable[b] || every_draw) values.push_back(r.draws[b][cursor]);
      }
      const Interval interval = percentile_interval(std::move(values), options.confidence);
      e.lo = interval.lo;
      e.hi = interval.hi;
    }
    ++cursor;
    return e;
  };
  for (const auto& plan : layout.comparisons) {
    std::vector<Estimate> tracked;
    for (std::size_t k = 0; k < comparison_value_count(plan); ++k) tracked.push_back(estimate("comparison", true));
    report.comparisons.push_back(describe_comparison(plan, f.runs, std::move(tracked), r.paired, options.confidence));
  }
  for (std::size_t g = 0; g < names.size(); ++g) {
    const std::size_t n_params = f.fits[g].parameters.size();
    for (std::size_t k = 0; k < layout.group_names[g].size(); ++k) {
      (k < n_params ? report.groups[g].parameters : report.groups[g].derived).push_back(estimate(layout.group_names[g][k]));
    }
    const double smallest = smallest_loss(f.group_runs[g]);
    mark_unidentified(report.groups[g].parameters, smallest, "group '" + names[g] + "'", report.warnings);
    mark_unidentified(report.groups[g].derived, smallest, "group '" + names[g] + "'", report.warnings);
    for (auto& w : ridge_warnings(report.groups[g].parameters, "group '" + names[g] + "'")) {
      report.warnings.push_back(std::move(w));
    }
  }
  for (std::size_t g = 0; g < names.size() && report.bootstrap_used > 0 && !r.band_at[g].empty(); ++g) {
    GroupFit& group = report.groups[g];
    for (std::size_t k = 0; k < r.band_at[g].size(); ++k) {
      std::vector<double> losses;
      for (std::size_t b = 0; b < r.draws.size(); ++b) {
        if (r.usable[b]) losses.push_back(r.band_draws[g][b][k]);
      }
      const Interval interval = percentile_interval(std::move(losses), options.confidence);
      group.band.push_back(
          {f.law == LawKind::c ? r.band_at[g][k].compute : r.band_at[g][k].params, interval.lo, interval.hi});
    }
  }
  for (std::size_t v = 0; v < layout.variants.size(); ++v) {
    Multiplier m;
    m.variant = names[layout.variants[v]];
    m.baseline = names[0];
    const ComputeRange pair = common_range(f.ranges[0], f.ranges[layout.variants[v]]);
    m.compute_lo = pair.lo;
    m.compute_hi = pair.hi;
    const int law_df = law_degrees_of_freedom(f, r, layout.variants[v]);
    for (double c : layout.budgets) {
      BudgetMultiplier at{c, widened_multiplier(estimate("m(C)"), law_df, options.confidence), false};
      const double reach = at.multiplier.value * c;  // the baseline's compute to match the variant at c
      at.extrapolated = !pair.contains(c) || !std::isfinite(reach) || !f.ranges[0].contains(reach);
      m.at_budgets.push_back(std::move(at));
    }
    if (layout.shared) {
      for (const char* key : {"E", "alpha", "A_baseline", "A_variant"}) m.shared_fit.push_back(estimate(key));
      m.constant = widened_multiplier(estimate("m"), law_df, options.confidence);
      const std::string pair_name = "shared fit " + m.variant + "/" + m.baseline;
      const double smallest =
          std::min(smallest_loss(f.group_runs[0]), smallest_loss(f.group_runs[layout.variants[v]]));
      mark_unidentified(m.shared_fit, smallest, pair_name, report.warnings);
      m.profile = profile_multiplier(mean_frontier(f.group_runs[0]),
                                     mean_frontier(f.group_runs[layout.variants[v]]), f.shared[v],
                                     options.settings, options.confidence);
      if (m.profile && m.profile->open()) {
        report.warnings.push_back(pair_name + ": the objective is flat along the multiplier (within " +
                                  rounded(m.profile->tolerance, 3) + " of its best from m = " +
                                  rounded(m.profile->lo, 3) + " to " + rounded(m.profile->hi, 3) +
                                  ", the profile's edge): the law does not identify the multiplier");
      }
      if (!f.shared[v].converged) {
        report.warnings.push_back("shared fit " + m.variant + "/" + m.baseline + " did not converge (" +
                                  f.shared[v].termination + ")");
      }
    }
    report.multipliers.push_back(std::move(m));
  }
  const int resamples = report.bootstrap_requested;
  if (resamples > 0 && r.frozen.empty() && report.bootstrap_used < resamples) {
    report.warnings.push_back(std::to_string(resamples - report.bootstrap_used) +
                              " bootstrap resamples gave non-finite fits and were left out");
  }
}

// Each group's law at FitOptions::predict's rows: the prediction, the refits' percentile interval widened on the
// log scale for the seeds' (or sizes') degrees of freedom as the multipliers' are, and whether the row lies
// outside the group's own runs.
void report_predictions(const Fitting& f, const Resamples& r, FitReport& report) {
  for (std::size_t g = 0; g < f.names.size(); ++g) {
    const std::vector<RunPoint>& rows = r.predict_at[g];
    if (rows.empty()) continue;
    double n_lo = kInf, n_hi = 0.0, d_lo = kInf, d_hi = 0.0, c_lo = kInf, c_hi = 0.0;
    for (const RunPoint& run : f.group_runs[g]) {
      n_lo = std::min(n_lo, run.params), n_hi = std::max(n_hi, run.params);
      d_lo = std::min(d_lo, run.tokens), d_hi = std::max(d_hi, run.tokens);
      c_lo = std::min(c_lo, run_compute(run)), c_hi = std::max(c_hi, run_compute(run));
    }
    // The group's own noise: its seeds' degrees of freedom, or its sizes - 1 when the sizes were resampled.
    const int df = r.by_seed ? seed_degrees_of_freedom(f.cells, {f.names[g]}) : count_model_sizes(f.group_runs[g]) - 1;
    for (std::size_t k = 0; k < rows.size(); ++k) {
      Prediction p{rows[k], predict_loss(f.fits[g], rows[k]), kNaN, kNaN, false};
      const double c = run_compute(rows[k]);
      p.extrapolated = rows[k].params < n_lo * (1 - 1e-9) || rows[k].params > n_hi * (1 + 1e-9) ||
                       (f.law == LawKind::chinchilla &&
                        (rows[k].tokens < d_lo * (1 - 1e-9) || rows[k].tokens > d_hi * (1 + 1e-9))) ||
                       (f.law == LawKind::c && (c < c_lo * (1 - 1e-9) || c > c_hi * (1 + 1e-9)));
      if (report.bootstrap_used > 0 && r.frozen.empty()) {
        std::vector<double> draws;
        for (std::size_t b = 0; b < r.usable.size(); ++b) {
          if (r.usable[b]) draws.push_back(r.predict_draws[g][b][k]);
        }
        const Interval interval = percentile_interval(std::move(draws), f.options.confidence);
        if (p.predicted > 0.0 && interval.lo > 0.0 && interval.hi > 0.0) {
          const Interval wide = expand_interval(std::log(p.predicted), {std::log(interval.lo), std::log(interval.hi)},
                                                small_sample_expansion(df, f.options.confidence));
          p.lo = std::exp(wide.lo);
          p.hi = std::exp(wide.hi);
        }
      }
      report.groups[g].predictions.push_back(std::move(p));
    }
  }
}

// Per group: the law fitted without its largest size, and its prediction there against the runs (on its own
// when a group has 5 or more sizes, for every group when asked); then each comparison against those checks.
void check_holdouts(const Fitting& f, FitReport& report) {
  // Per group: variants of one size differ in N by their scale vectors, so "the largest size" is the group's own.
  for (std::size_t g = 0; g < f.names.size(); ++g) {
    if (!f.options.holdout_largest && report.groups[g].model_sizes < 5) continue;
    if (f.law == LawKind::isoflop) {
      report.warnings.push_back("holdout: the isoflop law predicts no losses; skipped");
      break;
    }
    double largest = 0.0;
    for (const auto& r : f.group_runs[g]) largest = std::max(largest, r.params);
    std::vector<RunPoint> below;
    for (const auto& r : f.group_runs[g]) {
      if (r.params < largest * (1.0 - 1e-9)) below.push_back(r);
    }
    FitOptions held_out = f.options;
    held_out.law = f.law;
    if (auto missing = not_enough_sizes(below, held_out)) {
      report.warnings.push_back("holdout: group '" + f.names[g] + "' below the largest size: " + *missing);
      continue;
    }
    report.groups[g].holdout = holdout_check(f.law, f.group_runs[g], largest, f.options.settings);
  }
  for (auto& c : report.comparisons) check_holdout_against_effect(report, c);
}

}  // namespace

FitReport fit_runs(const std::vector<RunPoint>& input, const FitOptions& options) {
  validate(input);
  validate_predict_rows(input, options);
  if (auto missing = not_enough_sizes(input, options)) throw std::invalid_argument(*missing);
  std::vector<RunPoint> runs = with_groups(input);
  put_in_canonical_order(runs);
  const LawKind law = options.law.value_or(default_law(runs));
  Fitting f(options, law, std::move(runs));
  FitReport report;
  report.law = law;
  report.confidence = options.confidence;
  report.bootstrap_requested = std::max(options.bootstrap, 0);
  report.seed = options.seed;
  report.baseline = options.baseline;
  f.names = group_names(f.runs, options.baseline);
  for (const auto& name : f.names) f.group_runs.push_back(select(f.runs, name));
  f.has_baseline = f.names.front() == options.baseline;  // group_names puts it first when present

  fit_groups(f, report);
  plan_comparisons(f, report);
  const std::vector<double> point = collect(f.layout, f.fits, f.shared, f.runs, true);
  const Resamples resamples = bootstrap(f, report);
  report_estimates(f, resamples, point, report);
  report_predictions(f, resamples, report);
  check_holdouts(f, report);
  report.tune_seed = tune_seed_check(f.runs, with_groups(options.tune_runs_at_pick));
  if (report.tune_seed) {
    if (std::string warning = tune_seed_warning(*report.tune_seed); !warning.empty()) {
      report.warnings.push_back(std::move(warning));
    }
  }
  return report;
}

}  // namespace gammalab
