#include "core/scaling/law.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

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
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    const double ca = run_compute(runs[a]), cb = run_compute(runs[b]);
    return ca != cb ? ca < cb : runs[a].loss < runs[b].loss;
  });
  std::vector<RunPoint> frontier;
  double best_so_far = std::numeric_limits<double>::infinity();
  for (std::size_t start = 0; start < order.size();) {
    const double c0 = run_compute(runs[order[start]]);
    std::size_t end = start;
    while (end < order.size() && run_compute(runs[order[end]]) <= c0 * (1.0 + 1e-6)) ++end;
    double budget_min = std::numeric_limits<double>::infinity();
    for (std::size_t i = start; i < end; ++i) budget_min = std::min(budget_min, runs[order[i]].loss);
    if (budget_min < best_so_far) {
      // Copies of the same run (bootstrap duplicates) all stay, so resampling weights survive.
      for (std::size_t i = start; i < end; ++i) {
        if (runs[order[i]].loss == budget_min) frontier.push_back(runs[order[i]]);
      }
      best_so_far = budget_min;
    }
    start = end;
  }
  return frontier;
}

}  // namespace gammalab
