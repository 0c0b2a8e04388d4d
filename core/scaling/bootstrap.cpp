#include "core/scaling/bootstrap.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "core/scaling/quantiles.h"

namespace gammalab {

std::uint64_t resample_seed(std::uint64_t base_seed, std::uint64_t index) {
  std::uint64_t z = base_seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::vector<std::size_t> resample_by_model_size(const std::vector<RunPoint>& runs, std::mt19937_64& rng,
                                                int min_sizes) {
  // Clusters keyed by exact N: sizes come from the same config, so equal sizes are bit-equal.
  std::map<double, std::vector<std::size_t>> clusters;
  std::map<std::string, std::set<double>> sizes_of_group;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    clusters[runs[i].params].push_back(i);
    sizes_of_group[runs[i].group].insert(runs[i].params);
  }
  std::vector<const std::vector<std::size_t>*> keys;
  std::vector<double> key_sizes;
  for (const auto& [size, members] : clusters) {
    keys.push_back(&members);
    key_sizes.push_back(size);
  }
  if (keys.empty()) return {};
  std::uniform_int_distribution<std::size_t> pick(0, keys.size() - 1);
  std::vector<std::size_t> drawn(keys.size());
  for (int attempt = 0; attempt < 100; ++attempt) {
    for (auto& d : drawn) d = pick(rng);
    std::map<std::string, std::set<double>> got;
    for (auto d : drawn) {
      for (auto i : *keys[d]) got[runs[i].group].insert(key_sizes[d]);
    }
    bool ok = true;
    for (const auto& [group, sizes] : sizes_of_group) {
      const auto need = std::min<std::size_t>(static_cast<std::size_t>(std::max(min_sizes, 0)), sizes.size());
      ok = ok && got[group].size() >= need;
    }
    if (ok) break;
  }
  std::sort(drawn.begin(), drawn.end());  // order does not change a fit; sorted keeps resamples comparable
  std::vector<std::size_t> indices;
  for (auto d : drawn) indices.insert(indices.end(), keys[d]->begin(), keys[d]->end());
  return indices;
}

namespace {

// A drawn run of `cell`, its loss moved away from the cell's mean by sqrt(n/(n-1)) (see bootstrap.h).
RunPoint spread_from_mean(RunPoint drawn, const ReplicateCell& cell) {
  const auto n = static_cast<double>(cell.runs.size());
  const double inflation = cell.runs.size() > 1 ? std::sqrt(n / (n - 1.0)) : 1.0;
  const double adjusted = cell.mean_loss + inflation * (drawn.loss - cell.mean_loss);
  if (adjusted > 0.0) drawn.loss = adjusted;  // a loss stays positive (the laws are fitted in log space)
  return drawn;
}

}  // namespace

std::mt19937_64 block_generator(std::uint64_t stream, const std::string& group, double params, double tokens,
                                const std::vector<std::uint64_t>& seeds) {
  return keyed_generator(stream, group, {params, tokens}, seeds);
}

std::mt19937_64 keyed_generator(std::uint64_t stream, const std::string& group, const std::vector<double>& values,
                                const std::vector<std::uint64_t>& seeds) {
  std::uint64_t key = stream;
  for (const char ch : group) key = resample_seed(key, static_cast<unsigned char>(ch));
  key = resample_seed(key, group.size());
  for (const double value : values) key = resample_seed(key, std::bit_cast<std::uint64_t>(value));
  for (const std::uint64_t seed : seeds) key = resample_seed(key, seed);
  return std::mt19937_64(resample_seed(key, seeds.size()));
}

namespace {

// The seeds of a cell's runs, ascending (pairing.h); empty when a run has none or two share one.
std::vector<std::uint64_t> distinct_seeds(const std::vector<RunPoint>& runs, const ReplicateCell& cell) {
  std::vector<std::uint64_t> seeds = cell_seeds(runs, cell);
  if (std::adjacent_find(seeds.begin(), seeds.end()) != seeds.end()) return {};
  return seeds;
}

// `count` seeds drawn with replacement from `seeds`.
std::vector<std::uint64_t> draw_seeds(const std::vector<std::uint64_t>& seeds, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::size_t> pick(0, seeds.size() - 1);
  std::vector<std::uint64_t> drawn(seeds.size());
  for (auto& seed : drawn) seed = seeds[pick(rng)];
  return drawn;
}

}  // namespace

std::vector<RunPoint> resample_within_cells(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells,
                                            std::uint64_t stream) {
  // Families: a group's cells at one N with the same seeds. Keyed so that each draws once, whatever the order.
  std::map<std::tuple<std::string, double, std::vector<std::uint64_t>>, std::vector<std::uint64_t>> drawn;
  std::vector<RunPoint> sample;
  sample.reserve(runs.size());
  for (const auto& cell : cells) {
    const std::vector<std::uint64_t> seeds = distinct_seeds(runs, cell);
    if (seeds.empty()) {
      std::mt19937_64 rng = block_generator(stream, cell.group, cell.params, cell.tokens, {});
      std::uniform_int_distribution<std::size_t> pick(0, cell.runs.size() - 1);
      for (std::size_t k = 0; k < cell.runs.size(); ++k) {
        sample.push_back(spread_from_mean(runs[cell.runs[pick(rng)]], cell));
      }
      continue;
    }
    auto [it, fresh] = drawn.try_emplace({cell.group, cell.params, seeds});
    if (fresh) {
      std::mt19937_64 rng = block_generator(stream, cell.group, cell.params, 0.0, seeds);
      it->second = draw_seeds(seeds, rng);
    }
    for (const std::uint64_t seed : it->second) {
      sample.push_back(spread_from_mean(runs[run_with_seed(runs, cell, seed)], cell));
    }
  }
  return sample;
}

std::vector<RunPoint> resample_paired(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells,
                                      const Pairing& pairing, std::uint64_t stream) {
  // A family: the blocks at one baseline N with the same seeds (a run and its branches, or the budgets of one
  // size), drawn once and shared by every block of it and every group.
  std::map<std::pair<double, std::vector<std::uint64_t>>, std::vector<std::uint64_t>> drawn;
  std::vector<RunPoint> sample;
  sample.reserve(runs.size());
  for (const auto& block : pairing.blocks) {
    const double params = cells[block.cells[0]].params;
    auto [it, fresh] = drawn.try_emplace({params, block.seeds});
    if (fresh) {
      std::mt19937_64 rng = block_generator(stream, "", params, 0.0, block.seeds);
      it->second = draw_seeds(block.seeds, rng);
    }
    for (std::size_t c : block.cells) {
      for (std::uint64_t seed : it->second) {
        sample.push_back(spread_from_mean(runs[run_with_seed(runs, cells[c], seed)], cells[c]));
      }
    }
  }
  return sample;
}

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double h = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = h - static_cast<double>(lo);
  if (frac == 0.0 || sorted[lo] == sorted[hi]) return sorted[lo];  // avoids 0·inf and inf - inf
  if (std::isinf(sorted[hi])) return sorted[hi];
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

Interval percentile_interval(std::vector<double> values, double confidence) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }), values.end());
  std::sort(values.begin(), values.end());
  const double tail = (1.0 - confidence) / 2.0;
  return {quantile_sorted(values, tail), quantile_sorted(values, 1.0 - tail)};
}

double small_sample_expansion(double degrees_of_freedom, double confidence) {
  if (!(degrees_of_freedom >= 1.0)) return std::numeric_limits<double>::quiet_NaN();
  const double p = 0.5 * (1.0 + confidence);
  return student_t_quantile(p, degrees_of_freedom) / normal_quantile(p);
}

Interval expand_interval(double value, Interval interval, double factor) {
  return {value - factor * (value - interval.lo), value + factor * (interval.hi - value)};
}

Interval log_scale_interval(std::vector<double> draws, double estimate, double factor, double confidence) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (draws.size() < 2 || !std::isfinite(factor) || !(estimate > 0.0)) return {nan, nan};
  for (double& d : draws) d = d > 0.0 ? std::log(d) : nan;  // +inf stays +inf: an unreachable loss
  const Interval i = expand_interval(std::log(estimate), percentile_interval(std::move(draws), confidence), factor);
  return {std::exp(i.lo), std::exp(i.hi)};
}

}  // namespace gammalab
