#include "core/scaling/fit_report.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace gammalab {

namespace {

std::string fmt(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.5g", v);
  return buffer;
}

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

void estimate_rows(std::ostringstream& out, const std::vector<Estimate>& list, const std::string& indent) {
  for (const auto& e : list) {
    char line[160];
    std::snprintf(line, sizeof line, "%s%-12s %12s  [%s, %s]\n", indent.c_str(), e.name.c_str(), fmt(e.value).c_str(),
                  fmt(e.lo).c_str(), fmt(e.hi).c_str());
    out << line;
  }
}

}  // namespace

std::string render_table(const FitReport& r) {
  std::ostringstream out;
  out << "law " << law_name(r.law) << ", " << r.bootstrap_used << "/" << r.bootstrap_requested
      << " bootstrap resamples (seed " << r.seed << "), " << fmt(100.0 * r.confidence) << "% percentile intervals\n";
  for (const auto& g : r.groups) {
    out << "\ngroup " << g.group << ": " << g.runs << " runs, " << g.model_sizes << " model sizes, " << g.fit.points
        << " points fitted, objective " << fmt(g.fit.objective) << ", " << g.fit.termination << " ("
        << g.fit.starts_converged << "/" << g.fit.starts << " starts converged)\n";
    out << "  parameter           value  interval\n";
    estimate_rows(out, g.parameters, "  ");
    estimate_rows(out, g.derived, "  ");
    if (g.holdout) {
      out << "  holdout: fit without N = " << fmt(g.holdout->held_out_params) << ", predicting "
          << g.holdout->runs.size() << " runs: mean |rel. error| " << fmt(g.holdout->mean_abs_relative_error)
          << ", max " << fmt(g.holdout->max_abs_relative_error) << "\n";
      for (const auto& h : g.holdout->runs) {
        out << "    D=" << fmt(h.run.tokens) << " loss " << fmt(h.run.loss) << " predicted " << fmt(h.predicted)
            << " (" << fmt(100.0 * h.relative_error) << "%)\n";
      }
    }
  }
  for (const auto& m : r.multipliers) {
    out << "\ncompute multiplier " << m.variant << " over " << m.baseline << "\n";
    for (const auto& b : m.at_budgets) {
      estimate_rows(out, {Estimate{"C=" + fmt(b.compute), b.multiplier.value, b.multiplier.lo, b.multiplier.hi}}, "  ");
    }
    if (m.constant) {
      out << "  shared E and alpha fit:\n";
      estimate_rows(out, m.shared_fit, "    ");
      estimate_rows(out, {Estimate{"constant", m.constant->value, m.constant->lo, m.constant->hi}}, "    ");
    }
  }
  if (!r.warnings.empty()) {
    out << "\nwarnings:\n";
    for (const auto& w : r.warnings) out << "  " << w << "\n";
  }
  return out.str();
}

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
