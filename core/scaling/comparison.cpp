// Law-free comparison of a variant with the baseline (core/scaling/comparison.h).
#include "core/scaling/comparison.h"

#include <algorithm>
#include <utility>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>

#include "core/scaling/bootstrap.h"
#include "core/scaling/fit.h"

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

// The baseline's curve of token slice `slice` from the planned blocks' means, without block `skip` (none:
// skip >= size).
std::vector<CurvePoint> base_curve(const ComparisonPlan& plan, const std::vector<double>& base_means,
                                   std::size_t skip, std::size_t slice) {
  std::vector<CurvePoint> curve;
  for (std::size_t k = 0; k < plan.base_cells.size(); ++k) {
    if (k != skip && plan.slices[k] == slice) curve.push_back({std::log(plan.base_cells[k].compute), base_means[k]});
  }
  return curve;
}

// ln m_local per planned block against the baseline's curve of its slice, without block `skip`.
std::vector<LocalLog> local_logs(const ComparisonPlan& plan, const std::vector<double>& base_means, std::size_t skip,
                                 const std::vector<double>& variant_means) {
  std::vector<LocalLog> out;
  for (std::size_t k = 0; k < plan.variant_cells.size(); ++k) {
    const CurvePoint at{std::log(plan.variant_cells[k].compute), variant_means[k]};
    out.push_back(plan.ladder ? local_log_multiplier(base_curve(plan, base_means, skip, plan.slices[k]), at)
                              : LocalLog{kNaN, false});
  }
  return out;
}

// Mean of ln m_local over the blocks inside on all data, except `skip`; NaN if none or any is NaN.
double pooled_log(const ComparisonPlan& plan, const std::vector<LocalLog>& logs, std::size_t skip) {
  double sum = 0.0;
  int n = 0;
  for (std::size_t k = 0; k < logs.size(); ++k) {
    if (!plan.inside[k] || k == skip) continue;
    sum += logs[k].value;
    ++n;
  }
  return n > 0 ? sum / n : kNaN;
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
Estimate expanded(Estimate e, int df, double confidence) {
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

std::optional<Jackknife> jackknife(const ComparisonPlan& plan, const std::vector<double>& base_means,
                                   const std::vector<double>& variant_means) {
  std::vector<double> values;
  for (std::size_t skip = 0; skip < plan.base_cells.size() && plan.ladder; ++skip) {
    const double v = pooled_log(plan, local_logs(plan, base_means, skip, variant_means), skip);
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
  const std::map<CellKey, double> means = cell_means(runs);
  const auto logs = local_logs(plan, means_of(plan.base_cells, means), plan.base_cells.size(),
                               means_of(plan.variant_cells, means));
  for (const auto& l : logs) plan.inside.push_back(l.inside && std::isfinite(l.value) ? 1 : 0);
  return plan;
}

std::size_t comparison_value_count(const ComparisonPlan& plan) { return 2 * plan.base_cells.size() + 1; }

std::vector<double> comparison_values(const ComparisonPlan& plan, const std::vector<RunPoint>& sample) {
  const std::map<CellKey, double> means = cell_means(sample);
  const std::vector<double> base = means_of(plan.base_cells, means), variant = means_of(plan.variant_cells, means);
  std::vector<double> values;
  for (std::size_t k = 0; k < base.size(); ++k) values.push_back(variant[k] - base[k]);
  const auto logs = local_logs(plan, base, base.size(), variant);
  for (const auto& l : logs) values.push_back(l.value);
  values.push_back(pooled_log(plan, logs, logs.size()));
  return values;
}

Comparison describe_comparison(const ComparisonPlan& plan, const std::vector<RunPoint>& runs,
                               std::vector<Estimate> tracked, bool paired, double confidence) {
  Comparison c;
  c.variant = plan.variant;
  c.baseline = plan.baseline;
  c.paired = paired;
  c.ladder = plan.ladder;
  const std::size_t n = plan.base_cells.size();
  int pooled_df = 0;  // the pooled m_local reads every size's means
  for (std::size_t k = 0; k < n; ++k) {
    SizeComparison s = size_comparison(runs, plan.base_cells[k], plan.variant_cells[k]);
    const int df = degrees_of_freedom(s, paired);
    pooled_df += std::max(df, 0);
    s.gap = expanded(tracked[k], df, confidence);
    s.gap.name = "gap";
    s.local = exp_of(expanded(tracked[n + k], df, confidence));
    s.local.name = "m_local";
    s.inside = plan.inside[k] != 0;
    c.sizes_inside += s.inside ? 1 : 0;
    c.sizes.push_back(std::move(s));
  }
  c.local = exp_of(expanded(tracked[2 * n], pooled_df, confidence));
  for (const auto& s : c.sizes) c.relative_effect += std::abs(s.gap.value) / s.baseline_mean / static_cast<double>(n);
  c.holdout_error = kNaN;
  c.local.name = "m_local";
  const std::map<CellKey, double> means = cell_means(runs);
  c.jackknife = jackknife(plan, means_of(plan.base_cells, means), means_of(plan.variant_cells, means));
  return c;
}

}  // namespace gammalab
