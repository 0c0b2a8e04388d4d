#include "cli/fit_view.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "cli/number_text.h"
#include "cli/table.h"
#include "cli/terminal_text.h"
#include "core/scaling/verdict.h"

namespace gammalab::cli {

namespace {

constexpr const char* kUnbounded = "unbounded: add sizes or seeds";
constexpr const char* kAtBound = "not identified (at bound)";

// Five significant digits: what a bootstrap interval over a handful of runs can support.
constexpr int kDigits = 5;

// A point estimate: "n/a" when the fit has none; an infinite multiplier is a loss the baseline never reaches.
std::string value_text(const Estimate& e) {
  if (std::isnan(e.value)) return "n/a";
  if (std::isinf(e.value)) return "unreachable";
  return significant(e.value, kDigits);
}

// "-" without a bootstrap (nothing was resampled); unbounded when the resamples did not bound it.
std::string interval_text(const Estimate& e, bool bootstrapped) {
  if (e.at_bound) return kAtBound;
  if (!bootstrapped) return "-";
  if (!e.bounded()) return kUnbounded;
  return "[" + significant(e.lo, kDigits) + ", " + significant(e.hi, kDigits) + "]" +
         (e.reaches_bound ? " (reaches its bound: bounded from above only)" : "");
}

std::string indented(const std::string& text, const std::string& indent) {
  std::istringstream lines(text);
  std::string out, line;
  while (std::getline(lines, line)) out += indent + line + "\n";
  return out;
}

// One estimate per row, indented under the heading it belongs to; `what` names the first column.
std::string estimates_table(const std::vector<Estimate>& list, bool bootstrapped, const std::string& indent,
                            const std::string& what = "parameter") {
  TextTable table({{what}, {"value", TextTable::Align::kRight}, {"interval"}});
  for (const auto& e : list) table.add_row({e.name, value_text(e), interval_text(e, bootstrapped)});
  return indented(table.render(), indent);
}

std::string sizes_table(const std::vector<CellSummary>& sizes, const std::string& indent) {
  TextTable table({{"N", TextTable::Align::kRight},
                   {"D", TextTable::Align::kRight},
                   {"runs", TextTable::Align::kRight},
                   {"mean loss", TextTable::Align::kRight},
                   {"s.e.", TextTable::Align::kRight}});
  for (const auto& s : sizes) {
    table.add_row({significant(s.params, kDigits), significant(s.tokens, kDigits), std::to_string(s.runs), significant(s.mean, kDigits),
                   std::isnan(s.standard_error) ? "-" : significant(s.standard_error, kDigits)});
  }
  return indented(table.render(), indent);
}

// "−0.0228 ± 0.0035": a gap with its standard error ("± -" with fewer than two pairs).
std::string gap_text(double mean, double standard_error) {
  if (std::isnan(mean)) return "-";
  return significant(mean, kDigits) + " ± " + (std::isnan(standard_error) ? std::string("-") : significant(standard_error, kDigits));
}

// Per size: the paired gap with its interval, the unpaired figure where pairs are incomplete, the local
// multiplier with its interval; then the pooled multiplier and the jackknife over sizes.
bool any_pairs(const Comparison& c) {
  return std::any_of(c.sizes.begin(), c.sizes.end(), [](const SizeComparison& s) { return s.pairs > 0; });
}

// A size's seeds' degrees of freedom: its pairs - 1, or the smaller cell's runs - 1 without pairs.
double size_df(const SizeComparison& s) {
  return (s.pairs > 0 ? s.pairs : std::min(s.baseline_runs, s.variant_runs)) - 1.0;
}

std::string comparison_text(const FitReport& r, const Comparison& c) {
  const bool seeded = seeds_resampled(r);
  // `df`: the degrees of freedom the interval rests on (verdict.h's rule: below kFewestDegreesOfFreedom, none).
  auto interval = [&](const Estimate& e, double df) {
    if (seeded && df < kFewestDegreesOfFreedom) return std::string("too few seeds to bound");
    return seeded ? interval_text(e, true) : r.bootstrap_used > 0 ? "none: one run per configuration" : "-";
  };
  std::ostringstream out;
  out << "\n" << c.variant << " − " << c.baseline << " by size ("
      << (c.paired         ? "paired: runs sharing a seed"
          : any_pairs(c) ? "pairs incomplete: unpaired intervals"
                         : "unpaired: no runs share a seed")
      << ")\n";
  TextTable table({{"N", TextTable::Align::kRight},
                   {"D", TextTable::Align::kRight},
                   {"pairs", TextTable::Align::kRight},
                   {"paired gap", TextTable::Align::kRight},
                   {"unpaired gap", TextTable::Align::kRight},
                   {"gap interval"},
                   {"m_local", TextTable::Align::kRight},
                   {"interval"},
                   {"note"}});
  for (const auto& s : c.sizes) {
    const bool local = c.ladder && !std::isnan(s.local.value);
    std::string note = s.complete ? "" : s.pairs == 0 ? "no pairs" : "pairs incomplete";
    if (local && !s.inside) note += (note.empty() ? "" : "; ") + std::string("outside the baseline's range");
    table.add_row({significant(s.params, kDigits), significant(s.tokens, kDigits), std::to_string(s.pairs),
                   gap_text(s.paired_mean, s.paired_standard_error),
                   s.complete ? "" : gap_text(s.gap.value, s.unpaired_standard_error),
                   interval(s.gap, size_df(s)), local ? significant(s.local.value, kDigits) : "-",
                   local ? interval(s.local, size_df(s)) : "",
                   note});
  }
  out << indented(table.render(), "  ");
  if (!c.ladder) {
    out << "  no local multiplier: the baseline's sizes have different numbers of token counts, so its runs trace "
           "no curves in compute (one count per size is a ladder; the same counts at every size, one curve each)\n";
  } else if (c.sizes_pooled > 0) {
    out << "  m_local pooled with precision weights over " << c.sizes_pooled << " size" << (c.sizes_pooled == 1 ? "" : "s")
        << ": " << value_text(c.local) << " " << interval(c.local, c.degrees_of_freedom) << "; unweighted "
        << value_text(c.local_unweighted) << "; at the largest size " << value_text(c.at_largest) << " "
        << interval(c.at_largest, c.largest_degrees_of_freedom) << "\n";
    if (std::isfinite(c.trend.value)) {
      out << "  trend of ln m_local with ln N: " << significant(c.trend.value, kDigits) << " "
          << interval(c.trend, c.degrees_of_freedom - 1.0) << "\n";
    }
    if (c.jackknife) {
      out << "  leaving one size out: " << significant(c.jackknife->lo, kDigits) << " to "
          << significant(c.jackknife->hi, kDigits) << "\n";
    }
  }
  if (!c.token_sizes.empty()) {
    // A narrower question than m_local, read within each size (core/scaling/token_multiplier.h).
    out << "  m_D, the token multiplier at fixed N (read along each size's budgets):\n";
    for (const SizeTokenMultiplier& t : c.token_sizes) {
      out << "    N " << significant(t.params, kDigits) << ": " << value_text(t.value) << " "
          << interval(t.value, t.degrees_of_freedom) << " (" << t.budgets_inside << " of " << t.budgets
          << " budgets inside " << terminal_text(c.baseline) << "'s)\n";
    }
    out << "    over " << c.token_sizes.size() << " size" << (c.token_sizes.size() == 1 ? "" : "s") << ": "
        << value_text(c.tokens) << " " << interval(c.tokens, c.tokens_degrees_of_freedom) << "\n";
  }
  return out.str();
}

// A surface (cooldown branches, or budgets set per size): some model size has final losses at several D.
bool several_budgets_per_size(const FitReport& r) {
  for (const auto& g : r.groups) {
    std::map<double, std::set<double>> budgets;  // N -> D
    for (const auto& cell : g.sizes) {
      if (budgets[cell.params].insert(cell.tokens).second && budgets[cell.params].size() > 1) return true;
    }
  }
  return false;
}

// Per configuration checked: the main seeds' mean, the tune runs' at the pick, and t against its critical value.
std::string tune_seed_text(const TuneSeedCheck& check) {
  std::ostringstream out;
  out << "\ntune seed check: the tune stage's runs at the pick against the main seeds (t in standard errors, "
      << "disagreeing beyond the Bonferroni bound at " << significant(100.0 * check.family_alpha, kDigits)
      << "% over " << check.cells.size() << " configurations)\n";
  TextTable table({{"group"}, {"N", TextTable::Align::kRight}, {"D", TextTable::Align::kRight},
                   {"main", TextTable::Align::kRight}, {"tune", TextTable::Align::kRight},
                   {"t", TextTable::Align::kRight}, {"bound", TextTable::Align::kRight}, {"note"}});
  for (const TuneSeedCell& c : check.cells) {
    table.add_row({c.group, significant(c.params, kDigits), significant(c.tokens, kDigits),
                   significant(c.main_mean, kDigits) + " (" + std::to_string(c.main_runs) + ")",
                   significant(c.tune_mean, kDigits) + " (" + std::to_string(c.tune_runs) + ")",
                   significant(c.t, 3), significant(c.critical, 3), c.disagrees ? "disagrees" : ""});
  }
  out << indented(table.render(), "  ");
  return out.str();
}

}  // namespace

std::string fit_verdict_text(const FitReport& r) {
  std::ostringstream out;
  for (const auto& v : comparison_verdicts(r)) {
    out << v.headline << "\n";
    for (const auto& line : v.details) out << "  " << line << "\n";
  }
  if (r.tune_seed && r.tune_seed->disagreeing() > 0) {
    out << "caution: at " << r.tune_seed->disagreeing() << " of " << r.tune_seed->cells.size()
        << " configurations the tune stage's seed disagrees with the main seeds beyond chance (see \"tune seed "
           "check\"): these intervals rest on seeds that may not stand for others\n";
  }
  return terminal_text(out.str());
}

// `--predict`'s rows under one group's law: each row's N and D, its loss where given, the prediction with its
// interval and its error against that loss; rows outside the group's own runs are marked.
std::string predictions_text(const GroupFit& g, double confidence) {
  TextTable table({{"N", TextTable::Align::kRight},
                   {"D", TextTable::Align::kRight},
                   {"loss", TextTable::Align::kRight},
                   {"predicted", TextTable::Align::kRight},
                   {fixed(100 * confidence, 0) + "% interval"},
                   {"error", TextTable::Align::kRight},
                   {""}});
  for (const auto& p : g.predictions) {
    const bool known = std::isfinite(p.at.loss);
    table.add_row({significant(p.at.params, kDigits), significant(p.at.tokens, kDigits),
                   known ? significant(p.at.loss, kDigits) : "-", significant(p.predicted, kDigits),
                   std::isfinite(p.lo) ? "[" + significant(p.lo, kDigits) + ", " + significant(p.hi, kDigits) + "]"
                                       : "no bootstrap",
                   known ? significant(100.0 * (p.predicted - p.at.loss) / p.at.loss, 3) + "%" : "",
                   p.extrapolated ? "outside the runs" : ""});
  }
  return "  predictions (--predict):\n" + indented(table.render(), "    ");
}

namespace {

// Every table behind the verdict: the paired comparisons by size, each group's law, the law's multipliers, the
// tune seed check.
std::string detail_text(const FitReport& r) {
  std::ostringstream out;
  const bool bootstrapped = r.bootstrap_used > 0;
  for (const auto& c : r.comparisons) out << comparison_text(r, c);
  for (const auto& g : r.groups) {
    out << "\ngroup " << g.group << ": " << g.runs << " runs, " << g.model_sizes << " model sizes, " << g.fit.points
        << " points fitted (configurations' means), objective " << significant(g.fit.objective, kDigits)
        << (g.fit.delta_source.empty() ? std::string()
                                       : " at Huber delta " + significant(g.fit.huber_delta, 3) + " (" +
                                             g.fit.delta_source + ")")
        << ", " << g.fit.termination << " ("
        << g.fit.starts_converged << "/" << g.fit.starts << " starts converged)\n";
    if (!g.sizes.empty()) out << sizes_table(g.sizes, "  ");
    std::vector<Estimate> estimates = g.parameters;
    estimates.insert(estimates.end(), g.derived.begin(), g.derived.end());
    out << estimates_table(estimates, bootstrapped, "  ");
    if (!g.predictions.empty()) out << predictions_text(g, r.confidence);
    if (g.holdout) {
      out << "  holdout: fit without N = " << significant(g.holdout->held_out_params, kDigits) << ", predicting "
          << g.holdout->runs.size() << " runs: mean |rel. error| " << significant(g.holdout->mean_abs_relative_error, kDigits)
          << ", max " << significant(g.holdout->max_abs_relative_error, kDigits) << "\n";
      for (const auto& h : g.holdout->runs) {
        out << "    D=" << significant(h.run.tokens, kDigits) << " loss " << significant(h.run.loss, kDigits) << " predicted " << significant(h.predicted, kDigits)
            << " (" << significant(100.0 * h.relative_error, kDigits) << "%)\n";
      }
    }
  }
  for (const auto& m : r.multipliers) {
    out << "\ncompute multiplier " << m.variant << " over " << m.baseline << " (runs of both cover C = "
        << significant(m.compute_lo, kDigits) << " to " << significant(m.compute_hi, kDigits) << ")\n";
    TextTable table({{"compute"}, {"value", TextTable::Align::kRight}, {"interval"}, {"note"}});
    for (const auto& b : m.at_budgets) {
      table.add_row({"C=" + significant(b.compute, kDigits), value_text(b.multiplier), interval_text(b.multiplier, bootstrapped),
                     b.extrapolated ? "extrapolated" : ""});
    }
    out << indented(table.render(), "  ");
    if (m.constant) {
      out << "  shared E and alpha fit:\n";
      std::vector<Estimate> shared = m.shared_fit;
      shared.push_back({"constant", m.constant->value, m.constant->lo, m.constant->hi});
      out << estimates_table(shared, bootstrapped, "    ");
    }
    if (m.profile) {
      out << "  profile of the constant: objective within " << significant(m.profile->tolerance, kDigits) << " of its best for m from "
          << (m.profile->open_lo ? "below " : "") << significant(m.profile->lo, kDigits) << " to " << significant(m.profile->hi, kDigits)
          << (m.profile->open_hi ? " and beyond" : "") << "\n";
    }
  }
  if (r.tune_seed) out << tune_seed_text(*r.tune_seed);
  return out.str();
}

}  // namespace

std::string fit_report_text(const FitReport& r, const FitTextOptions& options) {
  std::ostringstream head, out;
  head << "law " << law_name(r.law) << ", " << r.bootstrap_used << "/" << r.bootstrap_requested
       << " bootstrap resamples" << (r.bootstrap_unit.empty() ? "" : " of " + r.bootstrap_unit) << " (seed " << r.seed
       << "), " << significant(100.0 * r.confidence, kDigits) << "% percentile intervals\n";
  if (several_budgets_per_size(r)) {
    head << "points: each run's final loss, at every (N, D) a size ran (in a sweep with cooldown branches, each "
            "branch's after its decay, annealed; a run's evaluations during its stable phase are not fitted: "
            "docs/branches.md)\n";
  }
  out << wrap_prose(head.str(), options.columns);
  // First, so that it is what a reader sees; it ends at a blank line (scripts take it with sed /^verdict:$/,/^$/).
  if (!r.multipliers.empty() || !r.comparisons.empty()) {
    out << "\nverdict:\n" << wrap_prose(indented(fit_verdict_text(r), "  "), options.columns);
  }
  if (options.detail) out << detail_text(r);
  if (!r.warnings.empty()) {
    std::ostringstream warnings;
    warnings << "\nwarnings:\n";
    for (const auto& w : r.warnings) warnings << "  " << w << "\n";
    out << wrap_prose(warnings.str(), options.columns);
  }
  if (!options.detail) {
    out << wrap_prose("\n(how it was reached, the paired gaps per size, each group's law and the law's multipliers: "
                   "--detail)\n",
                   options.columns);
  }
  // Group names and run labels are config values and job names, written by whoever submitted the sweep.
  return terminal_text(out.str());
}

}  // namespace gammalab::cli
