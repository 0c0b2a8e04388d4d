#include "cli/law_choice_view.h"

#include <cmath>
#include <sstream>

#include "cli/table.h"
#include "core/number_format.h"

namespace gammalab::cli {

namespace {

std::string percent(double x) { return std::isfinite(x) ? significant(100.0 * x, 3) + "%" : "-"; }

}  // namespace

std::string law_choice_text(const LawChoice& choice, std::size_t columns) {
  std::ostringstream out;
  out << wrap_prose("law forms compared on the same runs: each fitted without the largest model size and scored by "
                    "how far it misses that size's runs (mean |relative error|, averaged over groups); AICc on all "
                    "sizes beside it\n",
                    columns);
  TextTable table({{"law"},
                   {"parameters", TextTable::Align::kRight},
                   {"held-out error", TextTable::Align::kRight},
                   {"runs predicted", TextTable::Align::kRight},
                   {"AICc", TextTable::Align::kRight}});
  for (const LawScore& s : choice.scores) {
    table.add_row({s.law, std::to_string(s.parameters), percent(s.holdout_error),
                   std::to_string(s.holdout_runs), std::isfinite(s.aicc) ? significant(s.aicc, 4) : "-"});
  }
  std::istringstream rows(table.render());
  for (std::string line; std::getline(rows, line);) out << "  " << line << "\n";
  if (!choice.best) {
    out << wrap_prose("no form could be checked: the largest size's runs were predicted by none (a group needs runs "
                      "at its largest size and smaller ones; isoflop predicts no losses)\n",
                      columns);
    return out.str();
  }
  const LawScore& best = choice.scores[*choice.best];
  std::ostringstream verdict;
  verdict << "predicts best: " << best.law << ", missing the largest size by " << percent(best.holdout_error);
  std::optional<std::size_t> next;
  for (std::size_t i = 0; i < choice.scores.size(); ++i) {
    const LawScore& s = choice.scores[i];
    if (i != *choice.best && std::isfinite(s.holdout_error) && (!next || s.holdout_error < choice.scores[*next].holdout_error)) {
      next = i;
    }
  }
  // Errors that print the same are a tie, not a ranking (the same form twice, a law file beside its built-in).
  const bool tie = next && percent(choice.scores[*next].holdout_error) == percent(best.holdout_error);
  if (next) {
    const LawScore& runner = choice.scores[*next];
    verdict << (tie ? ", as does " + runner.law : " against " + runner.law + "'s " + percent(runner.holdout_error));
    if (best.holdout_error > 0.0 && !tie) {
      verdict << " (" << significant(runner.holdout_error / best.holdout_error, 3) << "× as far off)";
    }
  }
  verdict << "\n";
  // AICc differences under 2 do not tell two forms apart (Burnham and Anderson 2002, §2.6).
  if (choice.best_aicc && *choice.best_aicc != *choice.best &&
      !(choice.scores[*choice.best].aicc - choice.scores[*choice.best_aicc].aicc < 2.0)) {
    verdict << "AICc prefers " << choice.scores[*choice.best_aicc].law
            << ": it describes the sizes it was fitted to better, and predicts the largest one worse\n";
  }
  out << wrap_prose(verdict.str(), columns);
  return out.str();
}

}  // namespace gammalab::cli
