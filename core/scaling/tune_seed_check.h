#pragma once
// The tune seed as a check (docs/scaling-laws.md, "The tune seed"). A tune stage runs each value on seeds of
// its own; at the value it picked, those runs are the main configuration with other seeds, so they are more
// draws of the final loss the main seeds measure. A tune run far from the main seeds' mean says what the main
// seeds' own spread cannot: that they do not carry the result to other seeds (a bimodal outcome, heavy tails,
// a pick that won by luck).
//
// Per configuration (group, N, D) with main runs and tune runs at the pick:
//   t = (mean of the tune runs − mean of the main runs) / (s · √(1/n_main + 1/n_tune)),
// s the group's seed s.d. pooled over its main configurations (within each, about its own mean), with
// Σ(n_main − 1) degrees of freedom. Under the hypothesis that the tune seeds are seeds like the others (and the
// noise Gaussian) t is Student t; a configuration disagrees when |t| passes the Bonferroni critical value over
// all configurations checked, so that a study with no disagreement raises no warning with probability at least
// 1 − family_alpha (tests/core/tune_seed_check_test.cpp measures it, and the power to see a planted one).
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab {

struct TuneSeedCell {
  std::string group;
  double params = 0.0, tokens = 0.0;
  int main_runs = 0, tune_runs = 0;
  double main_mean = 0.0, tune_mean = 0.0;
  double sd = 0.0;        // the group's pooled seed s.d.
  double df = 0.0;        // its degrees of freedom
  double t = 0.0;         // the tune runs' distance from the main mean, in standard errors of the difference
  double critical = 0.0;  // |t| beyond this disagrees (Bonferroni over every cell checked, Student t with df)
  bool disagrees = false;
};

struct TuneSeedCheck {
  double family_alpha = 0.05;
  std::vector<TuneSeedCell> cells;  // by group, then N, then D: the same whatever the order of the runs
  int disagreeing() const;
};

// nullopt when no configuration has both main runs and tune runs at the pick in a group with a seed spread
// (two or more main runs of one configuration somewhere in the group).
std::optional<TuneSeedCheck> tune_seed_check(const std::vector<RunPoint>& main_runs,
                                             const std::vector<RunPoint>& tune_runs_at_pick,
                                             double family_alpha = 0.05);

// One line for a report's warnings when a configuration disagrees, naming each; empty when none does.
std::string tune_seed_warning(const TuneSeedCheck& check);

}  // namespace gammalab
