// Law-free comparison of a variant with the baseline (core/scaling/comparison.h).
#include "core/scaling/comparison.h"

#include <algorithm>
#include <utility>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "core/scaling/bootstrap.h"
#include "core/scaling/fit.h"
#include "core/scaling/token_multiplier.h"

namespace gammalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

using CellKey = std::tuple<std::string, double, double, double>;

CellKey key_of(const ReplicateCell& c) { return {c.group, c.params, c.tokens, c.compute}; }

std::map<CellKey, double> cell_means(const std::vector<RunPoint>& sample) {
  std::map<CellKey, double> means;
  for (const auto& cell : replicate_cells(sample)) means[key_of(cell)] = cell.mean_loss;
  return means;
}

double mean_at(const std::map<CellKey, double>& means, const ReplicateCell& cell) {
  const auto it = means.find(key_of(cell));
  return it == means.end() ? kNaN : it->second;
}

constexpr std::size_t kNoFamily = static_cast<std::size_t>(-1);

// The baseline's curve of token slice `slice` from the planned blocks' means, without the blocks of family
// `skip` (kNoFamily: none).
BaselineCurve base_curve(const ComparisonPlan& plan, const std::vector<double>& base_means, std::size_t skip,
                         std::size_t slice) {
  std::vector<CurvePoint> curve;
  for (std::size_t k = 0; k < plan.base_cells.size(); ++k) {
    if (plan.families[k] != skip && plan.slices[k] == slice) {
      curve.push_back({std::log(plan.base_cells[k].compute), base_means[k]});
    }
  }
  return BaselineCurve(std::move(curve));
}

// ln m_local per planned block against the baseline's curve of its slice, without the blocks of family `skip`.
std::vector<LocalLog> local_logs(const ComparisonPlan& plan, const std::vector<double>& base_means, std::size_t skip,
                                 const std::vector<double>& variant_means) {
  std::vector<LocalLog> out;
  std::map<std::size_t, BaselineCurve> curves;  // per slice, made once
  for (std::size_t k = 0; k < plan.variant_cells.size(); ++k) {
    if (!plan.ladder) {
      out.push_back({kNaN, false, kNaN});
      continue;
    }
    auto it = curves.find(plan.slices[k]);
    if (it == curves.end()) it = curves.emplace(plan.slices[k], base_curve(plan, base_means, skip, plan.slices[k])).first;
    out.push_back(local_log_multiplier(it->second, {std::log(plan.variant_cells[k].compute), variant_means[k]}));
  }
  return out;
}

// Weighted mean of ln m_local over the blocks with positive weight; NaN if none, or if any of them has no value
// (a resample where the curve went flat: that draw says nothing about the pooled value).
double pooled_log(const std::vector<LocalLog>& logs, const std::vector<double>& weights) {
  double sum = 0.0, total = 0.0;
  for (std::size_t k = 0; k < logs.size(); ++k) {
    if (!(weights[k] > 0.0)) continue;
    if (!std::isfinite(logs[k].value)) return kNaN;
    sum += weights[k] * logs[k].value;
    total += weights[k];
  }
  return total > 0.0 ? sum / total : kNaN;
}

// The weights of the unweighted mean over the same support.
std::vector<double> equal_weights(const std::vector<double>& weights) {
  std::vector<double> out;
  for (double w : weights) out.push_back(w > 0.0 ? 1.0 : 0.0);
  return out;
}

// Weighted least-squares slope of ln m_local on ln N over the support; NaN under two sizes.
double trend_slope(const ComparisonPlan& plan, const std::vector<LocalLog>& logs) {
  double total = 0.0, mean_x = 0.0, mean_y = 0.0;
  for (std::size_t k = 0; k < logs.size(); ++k) {
    if (!(plan.weights[k] > 0.0)) continue;
    if (!std::isfinite(logs[k].value)) return kNaN;
    total += plan.weights[k];
    mean_x += plan.weights[k] * std::log(plan.base_cells[k].params);
    mean_y += plan.weights[k] * logs[k].value;
  }
  if (!(total > 0.0)) return kNaN;
  mean_x /= total;
  mean_y /= total;
  double sxy = 0.0, sxx = 0.0;
  for (std::size_t k = 0; k < logs.size(); ++k) {
    if (!(plan.weights[k] > 0.0)) continue;
    const double dx = std::log(plan.base_cells[k].params) - mean_x;
    sxy += plan.weights[k] * dx * (logs[k].value - mean_y);
    sxx += plan.weights[k] * dx * dx;
  }
  return sxx > 1e-12 * total ? sxy / sxx : kNaN;
}

// The support's largest baseline size; 0 with an empty support.
double largest_size(const ComparisonPlan& plan) {
  double largest = 0.0;
  for (std::size_t k = 0; k < plan.weights.size(); ++k) {
    if (plan.weights[k] > 0.0) largest = std::max(largest, plan.base_cells[k].params);
  }
  return largest;
}

// ln m_local at the support's largest size: the unweighted mean over its budgets.
double log_at_largest(const ComparisonPlan& plan, const std::vector<LocalLog>& logs) {
  const double largest = largest_size(plan);
  std::vector<double> weights(logs.size(), 0.0);
  for (std::size_t k = 0; k < logs.size(); ++k) {
    if (plan.weights[k] > 0.0 && plan.base_cells[k].params == largest) weights[k] = 1.0;
  }
  return pooled_log(logs, weights);
}

std::vector<double> means_of(const std::vector<ReplicateCell>& cells, const std::map<CellKey, double>& means) {
  std::vector<double> out;
  for (const auto& c : cells) out.push_back(mean_at(means, c));
  return out;
}

double standard_error(const std::vector<double>& values) {
  const auto n = static_cast<double>(values.size());
  if (values.size() < 2) return kNaN;
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double squares = 0.0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / (n - 1.0) / n);
}

// The pairs of one block: differences variant - baseline over seeds both cells ran once.
std::vector<double> pair_differences(const std::vector<RunPoint>& runs, const ReplicateCell& base,
                                     const ReplicateCell& variant) {
  std::vector<double> out;
  for (auto i : base.runs) {
    if (!runs[i].seed) continue;
    const std::size_t j = run_with_seed(runs, variant, *runs[i].seed);
    if (j != kNoCell) out.push_back(runs[j].loss - runs[i].loss);
  }
  return out;
}

std::vector<double> cell_losses(const std::vector<RunPoint>& runs, const ReplicateCell& cell) {
  std::vector<double> out;
  for (auto i : cell.runs) out.push_back(runs[i].loss);
  return out;
}

SizeComparison size_comparison(const std::vector<RunPoint>& runs, const ReplicateCell& base,
                               const ReplicateCell& variant) {
  SizeComparison s;
  s.params = base.params;
  s.tokens = base.tokens;
  s.compute = base.compute;
  s.variant_compute = variant.compute;
  s.baseline_mean = base.mean_loss;
  s.baseline_runs = static_cast<int>(base.runs.size());
  s.variant_runs = static_cast<int>(variant.runs.size());
  const std::vector<double> d = pair_differences(runs, base, variant);
  s.pairs = static_cast<int>(d.size());
  s.paired_mean = d.empty() ? kNaN : std::accumulate(d.begin(), d.end(), 0.0) / static_cast<double>(d.size());
  s.paired_standard_error = standard_error(d);
  s.unpaired_standard_error = std::hypot(standard_error(cell_losses(runs, base)),
                                         standard_error(cell_losses(runs, variant)));
  s.complete = s.pairs == s.baseline_runs && s.pairs == s.variant_runs;
  return s;
}

// The seeds' degrees of freedom at one size: pairs - 1 when paired, else those of the smaller cell.
int degrees_of_freedom(const SizeComparison& s, bool paired) {
  return (paired ? s.pairs : std::min(s.baseline_runs, s.variant_runs)) - 1;
}

// The percentile interval of `e` widened for `df` degrees of freedom (bootstrap.h: small_sample_expansion).
Estimate expanded(Estimate e, double df, double confidence) {
  const Interval wide = expand_interval(e.value, {e.lo, e.hi}, small_sample_expansion(df, confidence));
  e.lo = wide.lo;
  e.hi = wide.hi;
  return e;
}

Estimate exp_of(Estimate e) {
  e.value = std::exp(e.value);
  e.lo = std::exp(e.lo);
  e.hi = std::exp(e.hi);
  return e;
}

// Each model size left out in turn, as a node of the baseline's curves and as a member of the support.
std::optional<Jackknife> jackknife(const ComparisonPlan& plan, const std::vector<double>& base_means,
                                   const std::vector<double>& variant_means) {
  std::vector<double> values;
  const std::size_t families =
      plan.families.empty() ? 0 : *std::max_element(plan.families.begin(), plan.families.end()) + 1;
  for (std::size_t skip = 0; skip < families && plan.ladder; ++skip) {
    std::vector<double> weights = plan.weights;
    for (std::size_t k = 0; k < weights.size(); ++k) weights[k] = plan.families[k] == skip ? 0.0 : weights[k];
    const double v = pooled_log(local_logs(plan, base_means, skip, variant_means), weights);
    if (std::isfinite(v)) values.push_back(v);
  }
  if (values.size() < 2) return std::nullopt;
  const auto n = static_cast<double>(values.size());
  const double mean = std::accumulate(values.begin(), values.end(), 0.0) / n;
  double squares = 0.0;
  for (double v : values) squares += (v - mean) * (v - mean);
  const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  return Jackknife{static_cast<int>(values.size()), std::exp(*lo), std::exp(*hi), std::sqrt((n - 1.0) / n * squares)};
}

// Satterthwaite's degrees of freedom of a weighted sum over families: family f contributes weight share c_f with
// df_f = its seeds - 1, and under a common noise its variance share is c_f, so df = (sum c_f)^2 / sum c_f^2/df_f
// (Satterthwaite 1946). One family with 2 seeds gives 1; three with 2 give 3, not the cells' count.
double satterthwaite(const std::vector<double>& share, const std::vector<int>& df) {
  double total = 0.0, denominator = 0.0;
  for (std::size_t f = 0; f < share.size(); ++f) {
    if (!(share[f] > 0.0)) continue;
    if (df[f] < 1) return 0.0;
    total += share[f];
    denominator += share[f] * share[f] / df[f];
  }
  return denominator > 0.0 ? total * total / denominator : 0.0;
}

}  // namespace

ComparisonPlan plan_comparison(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells,
                               const Pairing& pairing, const std::vector<std::string>& groups, std::size_t variant,
                               std::size_t reference) {
  ComparisonPlan plan;
  plan.baseline = groups.at(reference);
  plan.variant = groups.at(variant);
  plan.variant_slot = variant;
  for (std::size_t b = 0; b < pairing.blocks.size(); ++b) {
    const SizeBlock& block = pairing.blocks[b];
    if (block.cells[reference] == kNoCell || block.cells[variant] == kNoCell) continue;
    plan.blocks.push_back(b);
  }
  // By the baseline's size, then budget: what every table of the comparison lists (the blocks come in the
  // sweep's job order, where a run precedes its shorter cooldown branches).
  std::stable_sort(plan.blocks.begin(), plan.blocks.end(), [&](std::size_t a, std::size_t b) {
    const ReplicateCell& x = cells[pairing.blocks[a].cells[reference]];
    const ReplicateCell& y = cells[pairing.blocks[b].cells[reference]];
    return std::pair(x.params, x.tokens) < std::pair(y.params, y.tokens);
  });
  for (const std::size_t b : plan.blocks) {
    plan.base_cells.push_back(cells[pairing.blocks[b].cells[reference]]);
    plan.variant_cells.push_back(cells[pairing.blocks[b].cells[variant]]);
  }
  // Token slices: the k-th token count of each baseline size (in increasing order) is slice k. A ladder has one
  // token count per size, so one slice, whose cells ordered by compute are one curve. A surface (cooldown
  // branches, docs/branches.md: every size at the same budgets in tokens per parameter) has one slice per
  // budget, and each is a ladder of its own: a variant's size is read against the baseline's sizes at its own
  // budget. With different numbers of token counts per size the slices are no curves, and there is no m_local.
  std::map<double, std::vector<double>> tokens_at;  // baseline size -> its planned token counts, increasing
  for (const auto& cell : plan.base_cells) tokens_at[cell.params].push_back(cell.tokens);
  bool same_count = true;
  for (auto& [params, tokens] : tokens_at) {
    std::sort(tokens.begin(), tokens.end());
    same_count = same_count && tokens.size() == tokens_at.begin()->second.size();
  }
  for (const auto& cell : plan.base_cells) {
    const std::vector<double>& tokens = tokens_at[cell.params];
    plan.slices.push_back(static_cast<std::size_t>(std::find(tokens.begin(), tokens.end(), cell.tokens) - tokens.begin()));
  }
  plan.ladder = same_count && tokens_at.size() >= 2;
  plan.chord = plan.ladder && tokens_at.size() == 2;
  // A run family per baseline size: its seeds' runs at every budget (a run and its cooldown branches).
  for (const auto& cell : plan.base_cells) {
    plan.families.push_back(static_cast<std::size_t>(std::distance(tokens_at.begin(), tokens_at.find(cell.params))));
  }
  const std::map<CellKey, double> means = cell_means(runs);
  const std::vector<double> base_means = means_of(plan.base_cells, means);
  const std::vector<double> variant_means = means_of(plan.variant_cells, means);
  for (const TokenReading& r : token_readings(plan, base_means, variant_means)) {
    plan.family_budgets.push_back(r.budgets);
    plan.family_budgets_inside.push_back(r.budgets_inside);
  }
  const auto logs = local_logs(plan, base_means, kNoFamily, variant_means);
  for (std::size_t k = 0; k < logs.size(); ++k) {
    const LocalLog& l = logs[k];
    plan.inside.push_back(l.inside && std::isfinite(l.value) ? 1 : 0);
    // Precision: ln m = gap / slope, so var(ln m) = var(gap) / slope^2, and var(gap) is the pairs' noise over
    // their count, the same noise at every size (a per-size variance from two or three seeds would be too
    // noisy a weight: it would pick the luckiest size).
    const double seeds = std::min(plan.base_cells[k].runs.size(), plan.variant_cells[k].runs.size());
    const bool counts = std::isfinite(l.value) && std::isfinite(l.slope) && l.slope != 0.0;
    plan.weights.push_back(counts ? seeds * l.slope * l.slope : 0.0);
  }
  // Weights are relative: scaled so the largest is 1, they print and compare the same whatever the loss's scale.
  const double top = plan.weights.empty() ? 0.0 : *std::max_element(plan.weights.begin(), plan.weights.end());
  for (double& w : plan.weights) w = top > 0.0 ? w / top : 0.0;
  return plan;
}

// After the per-block gaps and logs: pooled, unweighted, trend, at the largest size.
constexpr std::size_t kPooledValues = 4;

namespace {

std::size_t family_count(const ComparisonPlan& plan) {
  return plan.families.empty() ? 0 : *std::max_element(plan.families.begin(), plan.families.end()) + 1;
}

}  // namespace

std::size_t comparison_value_count(const ComparisonPlan& plan) {
  return 2 * plan.base_cells.size() + kPooledValues + family_count(plan) + 1;
}

std::vector<double> comparison_values(const ComparisonPlan& plan, const std::vector<RunPoint>& sample) {
  const std::map<CellKey, double> means = cell_means(sample);
  const std::vector<double> base = means_of(plan.base_cells, means), variant = means_of(plan.variant_cells, means);
  std::vector<double> values;
  for (std::size_t k = 0; k < base.size(); ++k) values.push_back(variant[k] - base[k]);
  const auto logs = local_logs(plan, base, kNoFamily, variant);
  for (const auto& l : logs) values.push_back(l.value);
  values.push_back(pooled_log(logs, plan.weights));
  values.push_back(pooled_log(logs, equal_weights(plan.weights)));
  values.push_back(trend_slope(plan, logs));
  values.push_back(log_at_largest(plan, logs));
  const std::vector<TokenReading> tokens = token_readings(plan, base, variant);
  for (const TokenReading& r : tokens) values.push_back(r.log_multiplier);
  values.push_back(pooled_token_log(tokens));
  return values;
}

namespace {

// Per token slice, the baseline's curve sampled from its smallest to its largest compute, widened to every
// reading of the slice (a variant's C and the C where the curve reaches its loss, inside or along the tangent).
std::vector<CurveTrace> baseline_traces(const ComparisonPlan& plan, const std::vector<double>& base_means,
                                        const std::vector<SizeComparison>& sizes) {
  std::vector<CurveTrace> out;
  for (std::size_t slice : std::set<std::size_t>(plan.slices.begin(), plan.slices.end())) {
    const BaselineCurve curve = base_curve(plan, base_means, kNoFamily, slice);
    if (curve.sizes() < 2) continue;
    double lo = curve.first_log_compute(), hi = curve.last_log_compute();
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      const double at = std::log(sizes[k].variant_compute);
      const double reach = at + std::log(sizes[k].local.value);
      if (plan.slices[k] != slice || !std::isfinite(reach)) continue;
      lo = std::min({lo, at, reach});
      hi = std::max({hi, at, reach});
    }
    CurveTrace trace;
    for (int i = 0; i < kCurveTracePoints; ++i) {
      const double x = lo + (hi - lo) * i / (kCurveTracePoints - 1);
      trace.compute.push_back(std::exp(x));
      trace.loss.push_back(curve.loss_at(x));
    }
    out.push_back(std::move(trace));
  }
  return out;
}

// The token multiplier's part of a report: `tracked` holds ln m_D per family, then their mean.
void describe_tokens(const ComparisonPlan& plan, const std::vector<int>& family_df,
                     const std::vector<Estimate>& tracked, double confidence, Comparison& c) {
  std::vector<double> share(plan.family_budgets.size(), 0.0);
  for (std::size_t f = 0; f < plan.family_budgets.size(); ++f) {
    if (plan.family_budgets[f] < 2) continue;
    share[f] = 1.0;
    SizeTokenMultiplier t;
    for (std::size_t k = 0; k < plan.families.size(); ++k) {
      if (plan.families[k] == f) t.params = plan.base_cells[k].params;
    }
    t.budgets = plan.family_budgets[f];
    t.budgets_inside = plan.family_budgets_inside[f];
    t.degrees_of_freedom = family_df[f];
    t.value = exp_of(expanded(tracked[f], family_df[f], confidence));
    t.value.name = "m_D";
    c.token_sizes.push_back(std::move(t));
  }
  c.tokens_degrees_of_freedom = satterthwaite(share, family_df);
  c.tokens = exp_of(expanded(tracked.back(), c.tokens_degrees_of_freedom, confidence));
  c.tokens.name = "m_D over sizes";
}

}  // namespace

Comparison describe_comparison(const ComparisonPlan& plan, const std::vector<RunPoint>& runs,
                               std::vector<Estimate> tracked, bool paired, double confidence) {
  Comparison c;
  c.variant = plan.variant;
  c.baseline = plan.baseline;
  c.paired = paired;
  c.ladder = plan.ladder;
  c.chord = plan.chord;
  const std::size_t n = plan.base_cells.size();
  const std::size_t families =
      plan.families.empty() ? 0 : *std::max_element(plan.families.begin(), plan.families.end()) + 1;
  std::vector<int> family_df(families, 0);
  std::vector<int> family_seeds_df(families, -1);  // every block of the family, in the support or not
  std::vector<double> weighted_share(families, 0.0), equal_share(families, 0.0);
  const double largest = largest_size(plan);
  int largest_df = 0;
  for (std::size_t k = 0; k < n; ++k) {
    SizeComparison s = size_comparison(runs, plan.base_cells[k], plan.variant_cells[k]);
    const int df = degrees_of_freedom(s, paired);
    s.gap = expanded(tracked[k], df, confidence);
    s.gap.name = "gap";
    s.local = exp_of(expanded(tracked[n + k], df, confidence));
    s.local.name = "m_local";
    s.inside = plan.inside[k] != 0;
    const std::size_t family = plan.families[k];
    family_seeds_df[family] = family_seeds_df[family] < 0 ? df : std::min(family_seeds_df[family], df);
    if (plan.weights[k] > 0.0) {
      const std::size_t f = plan.families[k];
      // A family's df is its seeds' (the fewest over its budgets: a branch that did not finish has fewer).
      family_df[f] = weighted_share[f] > 0.0 ? std::min(family_df[f], df) : df;
      weighted_share[f] += plan.weights[k];
      equal_share[f] += 1.0;
      c.sizes_inside += s.inside ? 1 : 0;
      const int seeds = paired ? s.pairs : std::min(s.baseline_runs, s.variant_runs);
      c.fewest_seeds = c.fewest_seeds == 0 ? seeds : std::min(c.fewest_seeds, seeds);
      if (plan.base_cells[k].params == largest) largest_df = family_df[f];
    }
    c.sizes.push_back(std::move(s));
  }
  for (double share : weighted_share) c.sizes_pooled += share > 0.0 ? 1 : 0;
  c.degrees_of_freedom = satterthwaite(weighted_share, family_df);
  c.local = exp_of(expanded(tracked[2 * n], c.degrees_of_freedom, confidence));
  c.local.name = "m_local";
  c.local_unweighted = exp_of(expanded(tracked[2 * n + 1], satterthwaite(equal_share, family_df), confidence));
  c.local_unweighted.name = "m_local unweighted";
  // The slope spends one more degree of freedom than the mean; with two sizes it is their difference.
  c.trend = expanded(tracked[2 * n + 2], c.degrees_of_freedom - 1.0, confidence);
  c.trend.name = "trend of ln m_local on ln N";
  c.largest_degrees_of_freedom = largest_df;
  c.at_largest = exp_of(expanded(tracked[2 * n + 3], largest_df, confidence));
  c.at_largest.name = "m_local at the largest size";
  for (const auto& s : c.sizes) c.relative_effect += std::abs(s.gap.value) / s.baseline_mean / static_cast<double>(n);
  c.holdout_error = kNaN;
  const std::map<CellKey, double> means = cell_means(runs);
  const std::vector<double> base_means = means_of(plan.base_cells, means);
  c.jackknife = jackknife(plan, base_means, means_of(plan.variant_cells, means));
  if (plan.ladder) c.baseline_curves = baseline_traces(plan, base_means, c.sizes);
  describe_tokens(plan, family_seeds_df,
                  std::vector<Estimate>(tracked.begin() + static_cast<std::ptrdiff_t>(2 * n + kPooledValues), tracked.end()),
                  confidence, c);
  return c;
}

}  // namespace gammalab
