#include "core/scaling/fit_report.h"

#include <cmath>

namespace gammalab {

namespace {

nlohmann::json number(double v) {
  if (std::isfinite(v)) return v;
  return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

nlohmann::json estimate_json(const Estimate& e) {
  return {{"value", number(e.value)}, {"lo", number(e.lo)}, {"hi", number(e.hi)}};
}

nlohmann::json estimates_json(const std::vector<Estimate>& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& e : list) out[e.name] = estimate_json(e);
  return out;
}

}  // namespace

nlohmann::json to_json(const FitReport& r) {
  nlohmann::json out;
  out["law"] = std::string(law_name(r.law));
  out["confidence"] = r.confidence;
  out["bootstrap"] = {{"requested", r.bootstrap_requested}, {"used", r.bootstrap_used}, {"seed", r.seed}};
  out["baseline"] = r.baseline;
  out["groups"] = nlohmann::json::array();
  for (const auto& g : r.groups) {
    nlohmann::json j = {{"group", g.group},
                        {"runs", g.runs},
                        {"model_sizes", g.model_sizes},
                        {"points_fitted", g.fit.points},
                        {"objective", number(g.fit.objective)},
                        {"converged", g.fit.converged},
                        {"termination", g.fit.termination},
                        {"starts", g.fit.starts},
                        {"starts_converged", g.fit.starts_converged},
                        {"parameters", estimates_json(g.parameters)},
                        {"derived", estimates_json(g.derived)}};
    if (g.holdout) {
      nlohmann::json runs = nlohmann::json::array();
      for (const auto& h : g.holdout->runs) {
        runs.push_back({{"params", h.run.params},
                        {"tokens", h.run.tokens},
                        {"loss", h.run.loss},
                        {"label", h.run.label},
                        {"predicted", number(h.predicted)},
                        {"relative_error", number(h.relative_error)}});
      }
      nlohmann::json fitted = nlohmann::json::object();
      for (const auto& v : g.holdout->fit.parameters) fitted[v.name] = number(v.value);
      j["holdout"] = {{"held_out_params", g.holdout->held_out_params},
                      {"converged", g.holdout->fit.converged},
                      {"parameters", fitted},
                      {"mean_abs_relative_error", number(g.holdout->mean_abs_relative_error)},
                      {"max_abs_relative_error", number(g.holdout->max_abs_relative_error)},
                      {"runs", runs}};
    }
    out["groups"].push_back(std::move(j));
  }
  out["multipliers"] = nlohmann::json::array();
  for (const auto& m : r.multipliers) {
    nlohmann::json budgets = nlohmann::json::array();
    for (const auto& b : m.at_budgets) {
      nlohmann::json e = estimate_json(b.multiplier);
      e["compute"] = b.compute;
      budgets.push_back(std::move(e));
    }
    nlohmann::json j = {{"variant", m.variant}, {"baseline", m.baseline}, {"at_budgets", budgets}};
    j["constant"] = m.constant ? estimate_json(*m.constant) : nlohmann::json(nullptr);
    if (!m.shared_fit.empty()) j["shared_fit"] = estimates_json(m.shared_fit);
    out["multipliers"].push_back(std::move(j));
  }
  out["warnings"] = r.warnings;
  return out;
}

}  // namespace gammalab
