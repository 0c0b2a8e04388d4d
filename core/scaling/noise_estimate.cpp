// The noise of a finished sweep (core/scaling/noise_estimate.h).
#include "core/scaling/noise_estimate.h"

#include <algorithm>
#include <cmath>

#include "core/scaling/pairing.h"
#include "core/scaling/replicates.h"

namespace gammalab {

namespace {

struct Pooled {
  double squares = 0.0;
  int df = 0;
  void add(const std::vector<double>& values) {
    if (values.size() < 2) return;
    double mean = 0.0;
    for (double v : values) mean += v / static_cast<double>(values.size());
    for (double v : values) squares += (v - mean) * (v - mean);
    df += static_cast<int>(values.size()) - 1;
  }
  double variance() const { return df > 0 ? squares / df : 0.0; }
};

std::vector<std::string> groups_baseline_first(const std::vector<RunPoint>& runs, const std::string& baseline) {
  std::vector<std::string> groups{baseline};
  for (const auto& r : runs) {
    if (std::find(groups.begin(), groups.end(), r.group) == groups.end()) groups.push_back(r.group);
  }
  return groups;
}

// Minus the least-squares slope of mean loss on ln C over the baseline's configurations.
double baseline_slope(const std::vector<ReplicateCell>& cells, const std::string& baseline, int* sizes) {
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& c : cells) {
    if (c.group != baseline) continue;
    const double x = std::log(c.compute);
    n += 1;
    sx += x;
    sy += c.mean_loss;
    sxx += x * x;
    sxy += x * c.mean_loss;
  }
  *sizes = static_cast<int>(n);
  const double denominator = n * sxx - sx * sx;
  return denominator > 0.0 ? -(n * sxy - sx * sy) / denominator : 0.0;
}

}  // namespace

std::optional<NoiseEstimate> measure_noise(const std::vector<RunPoint>& runs, const std::string& baseline) {
  const std::vector<ReplicateCell> cells = replicate_cells(runs);
  Pooled within;
  for (const auto& c : cells) {
    std::vector<double> losses;
    for (auto i : c.runs) losses.push_back(runs[i].loss);
    within.add(losses);
  }
  NoiseEstimate out;
  int sizes = 0;
  out.loss_slope = baseline_slope(cells, baseline, &sizes);
  if (within.df == 0 || sizes < 2) return std::nullopt;
  out.noise = std::sqrt(within.variance());
  out.degrees_of_freedom = within.df;
  if (out.noise > 0.0) {
    for (const auto& c : cells) {
      const double k = static_cast<double>(c.runs.size());
      if (k < 2) continue;
      double mean = 0.0;
      for (auto i : c.runs) mean += runs[i].loss / k;
      for (auto i : c.runs) out.shape.push_back((runs[i].loss - mean) / (out.noise * std::sqrt((k - 1.0) / k)));
    }
    std::sort(out.shape.begin(), out.shape.end());
  }
  Pooled gaps;  // paired gaps around their block's mean gap, every variant
  const Pairing pairing = pair_cells(runs, cells, groups_baseline_first(runs, baseline));
  for (const auto& block : pairing.blocks) {
    for (std::size_t g = 1; g < block.cells.size() && block.cells[0] != kNoCell; ++g) {
      if (block.cells[g] == kNoCell) continue;
      std::vector<double> d;
      for (auto i : cells[block.cells[0]].runs) {
        const std::size_t j = runs[i].seed ? run_with_seed(runs, cells[block.cells[g]], *runs[i].seed) : kNoCell;
        if (j != kNoCell) d.push_back(runs[j].loss - runs[i].loss);
      }
      out.pairs += static_cast<int>(d.size());
      gaps.add(d);
    }
  }
  if (gaps.df > 0 && out.noise > 0.0) {
    out.seed_correlation = std::clamp(1.0 - gaps.variance() / (2.0 * out.noise * out.noise), 0.0, 0.95);
  }
  return out;
}

}  // namespace gammalab
