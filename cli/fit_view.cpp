#include "cli/fit_view.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "cli/table.h"

namespace gammalab::cli {

namespace {

// Five significant digits: what a bootstrap interval over a handful of runs can support.
std::string fmt(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.5g", v);
  return buffer;
}

// One estimate per row, indented under the heading it belongs to; `what` names the first column.
std::string estimates_table(const std::vector<Estimate>& list, const std::string& indent,
                            const std::string& what = "parameter") {
  TextTable table({{what}, {"value", TextTable::Align::kRight}, {"interval"}});
  for (const auto& e : list) table.add_row({e.name, fmt(e.value), "[" + fmt(e.lo) + ", " + fmt(e.hi) + "]"});
  std::istringstream lines(table.render());
  std::string out, line;
  while (std::getline(lines, line)) out += indent + line + "\n";
  return out;
}

}  // namespace

std::string fit_report_text(const FitReport& r) {
  std::ostringstream out;
  out << "law " << law_name(r.law) << ", " << r.bootstrap_used << "/" << r.bootstrap_requested
      << " bootstrap resamples (seed " << r.seed << "), " << fmt(100.0 * r.confidence) << "% percentile intervals\n";
  for (const auto& g : r.groups) {
    out << "\ngroup " << g.group << ": " << g.runs << " runs, " << g.model_sizes << " model sizes, " << g.fit.points
        << " points fitted, objective " << fmt(g.fit.objective) << ", " << g.fit.termination << " ("
        << g.fit.starts_converged << "/" << g.fit.starts << " starts converged)\n";
    std::vector<Estimate> estimates = g.parameters;
    estimates.insert(estimates.end(), g.derived.begin(), g.derived.end());
    out << estimates_table(estimates, "  ");
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
    std::vector<Estimate> at_budgets;
    for (const auto& b : m.at_budgets) {
      at_budgets.push_back({"C=" + fmt(b.compute), b.multiplier.value, b.multiplier.lo, b.multiplier.hi});
    }
    out << estimates_table(at_budgets, "  ", "compute");
    if (m.constant) {
      out << "  shared E and alpha fit:\n";
      std::vector<Estimate> shared = m.shared_fit;
      shared.push_back({"constant", m.constant->value, m.constant->lo, m.constant->hi});
      out << estimates_table(shared, "    ");
    }
  }
  if (!r.warnings.empty()) {
    out << "\nwarnings:\n";
    for (const auto& w : r.warnings) out << "  " << w << "\n";
  }
  return out.str();
}

}  // namespace gammalab::cli
