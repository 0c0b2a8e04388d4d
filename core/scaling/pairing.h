#pragma once
// Which runs of different groups are one experiment but for the variant. Runs at the same model size, tokens
// and seed share the data order and the initial weights of every parameter they have in common, so the
// difference of their losses is free of the seed's share of the noise: they are a pair. Comparisons
// (core/scaling/comparison.h) take differences within pairs, and the paired bootstrap
// (core/scaling/bootstrap.h) draws seeds, not runs, giving every group the same draw.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/scaling/law.h"
#include "core/scaling/replicates.h"

namespace gammalab {

inline constexpr std::size_t kNoCell = static_cast<std::size_t>(-1);

// One size of the baseline and each group's cell at it.
struct SizeBlock {
  std::vector<std::size_t> cells;  // per group, in the order of `groups`: an index into cells, or kNoCell
  std::vector<std::uint64_t> seeds;  // the baseline cell's seeds, ascending (empty when a run has none)
};

struct Pairing {
  std::vector<SizeBlock> blocks;  // one per baseline cell, in the baseline cells' order
  // Every group has a cell at every baseline size and none elsewhere, and every cell of a block holds the
  // block's seeds once each: a bootstrap can draw seeds and give every group the same draw.
  bool complete = false;
};

// groups[0] is the baseline. A variant's cell joins the baseline cell with the same tokens whose model size is
// nearest its own in ln N, when that baseline cell's nearest variant cell is it in turn: variants differ in N
// by their own scale vectors, so sizes are matched rather than compared for equality.
Pairing pair_cells(const std::vector<RunPoint>& runs, const std::vector<ReplicateCell>& cells,
                   const std::vector<std::string>& groups);

// The seeds of a cell's runs, ascending; empty when some run has none.
std::vector<std::uint64_t> cell_seeds(const std::vector<RunPoint>& runs, const ReplicateCell& cell);

// Index into runs of the run of `cell` with `seed`; kNoCell when the cell has none.
std::size_t run_with_seed(const std::vector<RunPoint>& runs, const ReplicateCell& cell, std::uint64_t seed);

}  // namespace gammalab
