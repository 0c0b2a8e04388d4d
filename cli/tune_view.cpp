#include "cli/tune_view.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "cli/number_text.h"
#include "cli/table.h"
#include "cli/terminal_text.h"
#include "core/scaling/quantiles.h"

namespace gammalab::cli {

namespace {

std::string loss_text(double v) {
  return std::isfinite(v) ? fixed(v, 4) : "failed";
}

// Six significant digits: a grid of expressions (0.5 / d_model) gives values such as 0.020833333333333332.
std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return significant(v.get<double>(), 6);
  return v.dump();
}

// tune.size_rule's line for one family: its fit, how well the sizes follow it, and each size's best beside
// the rule's value (what the main stage runs).
std::string size_rule_text(const TuneRule& rule) {
  std::ostringstream out;
  out << "size rule " << tune_key_text(rule.family) << ": ";
  if (!rule.ok()) {
    out << "none: " << rule.problem << "\n\n";
    return out.str();
  }
  const double t = student_t_quantile(0.975, rule.df);
  out << "log " << rule.field << " = " << fixed(rule.intercept, 3) << (rule.slope < 0 ? " - " : " + ")
      << fixed(std::abs(rule.slope), 3) << " log N\n";
  out << "  slope " << fixed(rule.slope, 3) << " [" << fixed(rule.slope - t * rule.slope_se, 3) << ", "
      << fixed(rule.slope + t * rule.slope_se, 3) << "] (95%, " << rule.df << " df); the sizes' best values scatter "
      << "about it by x" << fixed(std::exp(rule.residual_sd), 2) << "\n";
  TextTable table({{"N", TextTable::Align::kRight}, {"best", TextTable::Align::kRight},
                   {"rule (main stage)", TextTable::Align::kRight}, {""}});
  for (const auto& size : rule.sizes) {
    table.add_row({count_text(size.params), significant(std::exp(size.log_best), 4),
                   significant(rule.value_at(size.params), 4), size.at_edge ? "pick at an edge of its grid" : ""});
  }
  std::istringstream lines(table.render());
  for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
  out << "\n";
  return out.str();
}

}  // namespace

std::string tune_picks_text(const TunePicks& picks) {
  std::ostringstream out;
  for (const auto& group : picks.groups) {
    out << "group " << tune_key_text(group.key) << "\n";
    std::vector<TextTable::Column> columns;
    if (!group.trials.empty()) {
      for (const auto& [field, value] : group.trials.front().values.items()) columns.push_back({field});
    }
    columns.push_back({"runs", TextTable::Align::kRight});
    columns.push_back({"mean final loss", TextTable::Align::kRight});
    columns.push_back({""});
    TextTable table(columns);
    for (std::size_t i = 0; i < group.trials.size(); ++i) {
      const TuneTrial& t = group.trials[i];
      std::vector<std::string> row;
      for (const auto& [field, value] : t.values.items()) row.push_back(value_text(value));
      row.push_back(std::to_string(t.runs) + (t.failed > 0 ? " (" + std::to_string(t.failed) + " failed)" : ""));
      row.push_back(loss_text(t.mean_loss));
      const bool pick = static_cast<int>(i) == group.best;
      // Values the coordinator added to the grid as written (tune.extend, tune.refine) say so.
      const std::string origin = t.origin.empty() ? "" : " (" + t.origin + ")";
      row.push_back(!pick ? (t.origin.empty() ? "" : t.origin)
                    : pick_at_grid_edge(group) ? "<- pick" + origin + ", at an edge of the grid (allow_edge)"
                                               : "<- pick" + origin);
      table.add_row(row);
    }
    std::istringstream lines(table.render());
    for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
    if (group.best < 0) {
      out << "  no pick: " << group.problem << "\n";
    } else if (!std::isnan(group.pick_share)) {
      out << "  the pick holds in " << fixed(100.0 * group.pick_share, 0) << "% of " << kPickResamples
          << " resamples of its " << group.seeds << " tune seeds"
          << (group.pick_share < 0.8 ? ": the values are not told apart by these seeds; add tune seeds" : "") << "\n";
    } else if (group.seeds == 1) {
      out << "  one tune seed: how sure the pick is is not measured (tune.seeds: 2 or more)\n";
    }
    out << "\n";
  }
  for (const TuneRule& rule : picks.rules) out << size_rule_text(rule);
  return terminal_text(out.str());  // tuned values and group keys come from the sweep file
}

}  // namespace gammalab::cli
