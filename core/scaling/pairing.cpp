// Pairs of runs across groups (core/scaling/pairing.h).
#include "core/scaling/pairing.h"

#include <algorithm>
#include <cmath>

namespace gammalab {

namespace {

bool same_tokens(const ReplicateCell& a, const ReplicateCell& b) {
  return std::abs(a.tokens - b.tokens) <= 1e-9 * std::max(a.tokens, b.tokens);
}

// Among cells of `group` with the tokens of `of`, the one nearest `of` in ln N; kNoCell if none.
std::size_t nearest(const std::vector<ReplicateCell>& cells, const ReplicateCell& of, const std::string& group) {
  std::size_t best = kNoCell;
  double best_distance = 0.0;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (cells[c].group != group || !same_tokens(cells[c], of)) continue;
    const double distance = std::abs(std::log(cells[c].params / of.params));
    if (best == kNoCell || distance < best_distance) {
      best = c;
      best_distance = distance;
    }
  }
  return best;
}

bool block_complete(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells, const SizeBlock& b) {
  if (b.seeds.empty() || std::adjacent_find(b.seeds.begin(), b.seeds.end()) != b.seeds.end()) return false;
  return std::all_of(b.cells.begin(), b.cells.end(),
                     [&](std::size_t c) { return c != kNoCell && cell_seeds(runs, cells[c]) == b.seeds; });
}

}  // namespace

Pairing pair_cells(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells,
                   const std::vector<std::string>& groups) {
  Pairing pairing;
  if (groups.empty()) return pairing;
  std::size_t matched = 0;
  for (std::size_t b = 0; b < cells.size(); ++b) {
    if (cells[b].group != groups[0]) continue;
    SizeBlock block;
    block.seeds = cell_seeds(runs, cells[b]);
    for (const auto& group : groups) {
      const std::size_t c = group == groups[0] ? b : nearest(cells, cells[b], group);
      const bool mutual = c != kNoCell && nearest(cells, cells[c], groups[0]) == b;
      block.cells.push_back(mutual ? c : kNoCell);
      matched += mutual ? 1 : 0;
    }
    pairing.blocks.push_back(std::move(block));
  }
  std::size_t in_groups = 0;  // cells of the compared groups: each must sit in a block for a complete pairing
  for (const auto& cell : cells) in_groups += std::count(groups.begin(), groups.end(), cell.group) > 0 ? 1 : 0;
  pairing.complete = !pairing.blocks.empty() && matched == in_groups &&
                     std::all_of(pairing.blocks.begin(), pairing.blocks.end(),
                                 [&](const SizeBlock& b) { return block_complete(runs, cells, b); });
  return pairing;
}

std::vector<std::uint64_t> cell_seeds(const std::vector<RunPoint>& runs, const ReplicateCell& cell) {
  std::vector<std::uint64_t> seeds;
  for (auto i : cell.runs) {
    if (!runs[i].seed) return {};
    seeds.push_back(*runs[i].seed);
  }
  std::sort(seeds.begin(), seeds.end());
  return seeds;
}

std::size_t run_with_seed(const std::vector<RunPoint>& runs, const ReplicateCell& cell, std::uint64_t seed) {
  for (auto i : cell.runs) {
    if (runs[i].seed == seed) return i;
  }
  return kNoCell;
}

}  // namespace gammalab
