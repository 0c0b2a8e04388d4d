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

std::vector<RunPoint> configuration_means(const std::vector<RunPoint>& runs) {
  std::vector<RunPoint> means;
  for (const auto& cell : replicate_cells(runs)) {
    RunPoint point = runs[cell.runs.front()];
    point.loss = cell.mean_loss;
    point.seed = std::nullopt;
    point.label.clear();
    means.push_back(std::move(point));
  }
  return means;
}

std::optional<double> mean_log_scatter(const std::vector<RunPoint>& runs) {
  double squares = 0.0;
  int df = 0, replicated = 0, replicated_runs = 0;
  for (const auto& cell : replicate_cells(runs)) {
    if (cell.runs.size() < 2) continue;
    double mean = 0.0;
    for (auto i : cell.runs) mean += std::log(runs[i].loss) / static_cast<double>(cell.runs.size());
    for (auto i : cell.runs) squares += (std::log(runs[i].loss) - mean) * (std::log(runs[i].loss) - mean);
    df += static_cast<int>(cell.runs.size()) - 1;
    ++replicated;
    replicated_runs += static_cast<int>(cell.runs.size());
  }
  if (df == 0) return std::nullopt;
  const double per_run = std::sqrt(squares / df);
  return per_run / std::sqrt(static_cast<double>(replicated_runs) / replicated);
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
