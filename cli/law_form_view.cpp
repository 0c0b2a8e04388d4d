#include "cli/law_form_view.h"

#include <cmath>
#include <sstream>

#include "cli/number_text.h"
#include "cli/table.h"

namespace gammalab::cli {

namespace {

std::string value_text(double v) { return std::isfinite(v) ? significant(v, 4) : "-"; }

std::string interval_text(const Interval& i) {
  if (!std::isfinite(i.lo) || !std::isfinite(i.hi)) return "-";
  return "[" + significant(i.lo, 4) + ", " + significant(i.hi, 4) + "]";
}

std::string flags(const LawFormEstimate& e) {
  std::string out;
  auto add = [&](const char* flag) { out += (out.empty() ? "" : "; ") + std::string(flag); };
  if (e.at_bound) add("at its bound");
  if (e.interval_at_bound) add("interval reaches a bound");
  if (e.wide) add("poorly identified");
  return out;
}

void indented(std::ostringstream& out, const std::string& table) {
  std::istringstream rows(table);
  for (std::string line; std::getline(rows, line);) out << "  " << line << "\n";
}

void group_text(std::ostringstream& out, const LawFormReport& report, const LawFormGroupFit& g, std::size_t columns) {
  std::ostringstream head;
  head << (g.group.empty() ? "all runs" : "group " + g.group) << ": " << g.rows << " runs in " << g.configurations
       << " configurations; Huber delta " << significant(g.huber_delta, 3) << " (" << g.delta_source << "); "
       << g.starts_converged << " of " << g.starts << " starts converged"
       << (g.converged ? "" : "; the kept start did not (" + g.termination + ")") << "\n";
  out << wrap_prose(head.str(), columns);
  TextTable table({{"parameter"},
                   {"value", TextTable::Align::kRight},
                   {significant(100.0 * report.confidence, 3) + "% interval", TextTable::Align::kRight},
                   {"flags", TextTable::Align::kLeft, 1}});
  for (const auto& e : g.estimates) table.add_row({e.name, value_text(e.value), interval_text(e.interval), flags(e)});
  indented(out, table.render_fitted(columns > 2 ? columns - 2 : 0));
  for (const auto& p : g.profiles) {
    std::string line = "  profile of " + p.parameter + ": the fit's objective allows " + significant(p.lo, 4) + " to " +
                       significant(p.hi, 4);
    if (p.open_lo || p.open_hi) {
      line += std::string(" (flat ") + (p.open_lo && p.open_hi ? "both ways" : p.open_lo ? "below" : "above") +
              ": not identified there)";
    }
    out << wrap_prose(line + "\n", columns);
  }
  if (g.holdout_runs > 0) {
    std::ostringstream holdout;
    holdout << "  predicting the " << g.holdout_runs << " runs at the largest " << report.variables[report.family_variable]
            << " (" << significant(g.holdout_value, 3) << ") from the others misses them by "
            << (std::isfinite(g.holdout_error) ? significant(100.0 * g.holdout_error, 3) + "%" : std::string("-"))
            << " (mean |relative error|)\n";
    out << wrap_prose(holdout.str(), columns);
  }
  if (g.resampling.empty()) {
    out << wrap_prose("  (no intervals: " + std::string(report.bootstrap == 0 ? "--bootstrap 0" : "one configuration") +
                          ")\n",
                      columns);
  } else {
    std::ostringstream note;
    note << "  (" << g.draws << " of " << report.bootstrap << " resamples of " << g.resampling;
    if (g.degrees_of_freedom >= 1) note << ", widened for the seeds' " << significant(g.degrees_of_freedom, 3) << " df";
    note << ")\n";
    out << wrap_prose(note.str(), columns);
  }
}

void multipliers_text(std::ostringstream& out, const LawFormReport& report, std::size_t columns) {
  if (report.multipliers.empty()) return;
  const bool sizes = report.frontier == LawFrontier::kParams;
  const std::string how = report.frontier == LawFrontier::kComputeOptimal
                              ? "on each law's compute-optimal frontier, min over params of L at C = 6 params tokens"
                          : sizes ? "on each law in params: the size the baseline needs for the group's loss, over its size"
                                  : "on each law in compute";
  out << wrap_prose(std::string(sizes ? "parameter" : "compute") + " multipliers over " +
                        report.multipliers.front().baseline + " (" + how + ")\n",
                    columns);
  TextTable table({{"group"},
                   {sizes ? "params" : "budget (FLOPs)", TextTable::Align::kRight},
                   {"multiplier", TextTable::Align::kRight},
                   {significant(100.0 * report.confidence, 3) + "% interval", TextTable::Align::kRight}});
  for (const auto& m : report.multipliers) {
    const std::string value = std::isinf(m.value) ? "unreachable" : std::isfinite(m.value) ? significant(m.value, 3) + "×" : "-";
    table.add_row({m.group, scientific(m.budget, 1), value, interval_text(m.interval)});
  }
  indented(out, table.render_fitted(columns > 2 ? columns - 2 : 0));
}

}  // namespace

std::string law_form_text(const LawFormReport& report, std::size_t columns) {
  std::ostringstream out;
  out << "law " << report.law << (report.source.empty() ? "" : " (" + report.source + ")") << "\n";
  out << wrap_prose("  L = " + report.expression + "\n", columns);
  for (const auto& g : report.groups) group_text(out, report, g, columns);
  multipliers_text(out, report, columns);
  if (report.predictions.empty()) return out.str();
  out << "predictions\n";
  std::vector<TextTable::Column> header;
  header.push_back({"group"});
  header.push_back({"label", TextTable::Align::kLeft, 2, true});
  for (const auto& v : report.variables) header.push_back({v, TextTable::Align::kRight});
  header.push_back({"predicted", TextTable::Align::kRight});
  header.push_back({significant(100.0 * report.confidence, 3) + "% interval", TextTable::Align::kRight});
  header.push_back({"loss", TextTable::Align::kRight, 1});
  TextTable table(std::move(header));
  for (const auto& p : report.predictions) {
    std::vector<std::string> row{p.group, p.label};
    for (double v : p.values) row.push_back(value_text(v));
    row.push_back(value_text(p.predicted));
    row.push_back(interval_text(p.interval));
    row.push_back(value_text(p.loss));
    table.add_row(std::move(row));
  }
  indented(out, table.render_fitted(columns > 2 ? columns - 2 : 0));
  return out.str();
}

}  // namespace gammalab::cli
