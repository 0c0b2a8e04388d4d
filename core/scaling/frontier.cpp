// The compute frontier (core/scaling/frontier.h).
#include "core/scaling/frontier.h"

#include <algorithm>
#include <limits>

#include "core/scaling/replicates.h"

namespace gammalab {

std::vector<RunPoint> compute_frontier(const std::vector<RunPoint>& runs) {
  // Cells of replicated runs (seeds of one configuration, core/scaling/replicates.h), ordered by compute. A
  // cell is judged by its mean loss, so seeds neither pull the frontier down (a minimum over seeds is biased
  // low) nor get dropped: every run of a frontier cell stays, as do bootstrap copies of a run.
  std::vector<ReplicateCell> cells = replicate_cells(runs);
  std::stable_sort(cells.begin(), cells.end(), [](const ReplicateCell& a, const ReplicateCell& b) {
    return a.compute != b.compute ? a.compute < b.compute : a.mean_loss < b.mean_loss;
  });
  std::vector<RunPoint> frontier;
  double best_so_far = std::numeric_limits<double>::infinity();
  for (std::size_t start = 0; start < cells.size();) {
    // Cells at the same budget (relative tolerance 1e-6): the one with the lowest mean represents it.
    std::size_t end = start, best = start;
    while (end < cells.size() && cells[end].compute <= cells[start].compute * (1.0 + 1e-6)) {
      if (cells[end].mean_loss < cells[best].mean_loss) best = end;
      ++end;
    }
    if (cells[best].mean_loss < best_so_far) {
      for (auto i : cells[best].runs) frontier.push_back(runs[i]);
      best_so_far = cells[best].mean_loss;
    }
    start = end;
  }
  return frontier;
}

}  // namespace gammalab
