#include "core/scaling/law.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/scaling/replicates.h"

namespace gammalab {

double run_compute(const RunPoint& run) {
  return run.compute > 0.0 ? run.compute : 6.0 * run.params * run.tokens;
}

std::string_view law_name(LawKind kind) {
  switch (kind) {
    case LawKind::n: return "n";
    case LawKind::c: return "c";
    case LawKind::chinchilla: return "chinchilla";
    case LawKind::isoflop: return "isoflop";
  }
  return "?";
}

std::optional<LawKind> parse_law(std::string_view name) {
  for (auto kind : {LawKind::n, LawKind::c, LawKind::chinchilla, LawKind::isoflop}) {
    if (law_name(kind) == name) return kind;
  }
  return std::nullopt;
}

double fit_value(const LawFit& fit, std::string_view name) {
  for (const auto* list : {&fit.parameters, &fit.derived}) {
    for (const auto& v : *list) {
      if (v.name == name) return v.value;
    }
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double predict_loss(const LawFit& fit, const RunPoint& run) {
  const double E = fit_value(fit, "E"), A = fit_value(fit, "A"), alpha = fit_value(fit, "alpha");
  switch (fit.kind) {
    case LawKind::n: return E + A * std::pow(run.params, -alpha);
    case LawKind::c: return E + A * std::pow(run_compute(run), -alpha);
    case LawKind::chinchilla:
      return E + A * std::pow(run.params, -alpha) + fit_value(fit, "B") * std::pow(run.tokens, -fit_value(fit, "beta"));
    case LawKind::isoflop: break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

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
