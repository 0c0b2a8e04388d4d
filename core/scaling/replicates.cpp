#include "core/scaling/replicates.h"

#include <cmath>
#include <limits>
#include <map>
#include <tuple>

namespace gammalab {

std::vector<ReplicateCell> replicate_cells(const std::vector<RunPoint>& runs) {
  std::vector<ReplicateCell> cells;
  std::map<std::tuple<std::string, double, double, double>, std::size_t> index;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunPoint& r = runs[i];
    const auto [it, inserted] = index.try_emplace({r.group, r.params, r.tokens, r.compute}, cells.size());
    if (inserted) cells.push_back({r.group, r.params, r.tokens, run_compute(r), {}, 0.0});
    cells[it->second].runs.push_back(i);
  }
  for (auto& cell : cells) {
    for (auto i : cell.runs) cell.mean_loss += runs[i].loss;
    cell.mean_loss /= static_cast<double>(cell.runs.size());
  }
  return cells;
}

bool every_cell_replicated(const std::vector<ReplicateCell>& cells) {
  for (const auto& cell : cells) {
    if (cell.runs.size() < 2) return false;
  }
  return !cells.empty();
}

CellSummary summarise(const ReplicateCell& cell, const std::vector<RunPoint>& runs) {
  CellSummary s{cell.params, cell.tokens, cell.compute, static_cast<int>(cell.runs.size()), cell.mean_loss, 0.0};
  if (s.runs < 2) {
    s.standard_error = std::numeric_limits<double>::quiet_NaN();
    return s;
  }
  double squares = 0.0;
  for (auto i : cell.runs) squares += (runs[i].loss - s.mean) * (runs[i].loss - s.mean);
  s.standard_error = std::sqrt(squares / static_cast<double>(s.runs - 1) / static_cast<double>(s.runs));
  return s;
}

}  // namespace gammalab
