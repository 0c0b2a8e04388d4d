#include "core/scaling/law.h"

#include <algorithm>
#include <cmath>
#include <limits>

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

}  // namespace gammalab
