// The tune seed as a check (see core/scaling/tune_seed_check.h).
#include "core/scaling/tune_seed_check.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "core/scaling/quantiles.h"
#include "core/number_format.h"

namespace gammalab {

namespace {

using CellKey = std::tuple<std::string, double, double>;  // group, N, D

struct Losses {
  std::vector<double> main, tune;
};

double mean(const std::vector<double>& v) {
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum / double(v.size());
}

}  // namespace

int TuneSeedCheck::disagreeing() const {
  return static_cast<int>(std::count_if(cells.begin(), cells.end(), [](const TuneSeedCell& c) { return c.disagrees; }));
}

std::optional<TuneSeedCheck> tune_seed_check(const std::vector<RunPoint>& main_runs,
                                             const std::vector<RunPoint>& tune_runs_at_pick, double family_alpha) {
  std::map<CellKey, Losses> cells;  // ordered: the result does not depend on the order of the runs
  for (const RunPoint& r : main_runs) cells[{r.group, r.params, r.tokens}].main.push_back(r.loss);
  for (const RunPoint& r : tune_runs_at_pick) {
    const auto found = cells.find({r.group, r.params, r.tokens});
    if (found != cells.end()) found->second.tune.push_back(r.loss);
  }
  // Each group's seed variance, pooled within its main configurations: sums are taken in the cells' order, and
  // each cell's losses sorted first, so that the bytes out do not depend on the order of the runs either.
  std::map<std::string, std::pair<double, double>> pooled;  // group -> (sum of squares, df)
  for (auto& [key, losses] : cells) {
    std::sort(losses.main.begin(), losses.main.end());
    std::sort(losses.tune.begin(), losses.tune.end());
    if (losses.main.size() < 2) continue;
    const double m = mean(losses.main);
    double ss = 0.0;
    for (double x : losses.main) ss += (x - m) * (x - m);
    auto& [sum, df] = pooled[std::get<0>(key)];
    sum += ss;
    df += double(losses.main.size() - 1);
  }
  TuneSeedCheck check;
  check.family_alpha = family_alpha;
  for (const auto& [key, losses] : cells) {
    const auto group = pooled.find(std::get<0>(key));
    if (losses.tune.empty() || group == pooled.end() || group->second.second <= 0.0) continue;
    TuneSeedCell c;
    std::tie(c.group, c.params, c.tokens) = key;
    c.main_runs = static_cast<int>(losses.main.size());
    c.tune_runs = static_cast<int>(losses.tune.size());
    c.main_mean = mean(losses.main);
    c.tune_mean = mean(losses.tune);
    c.df = group->second.second;
    c.sd = std::sqrt(group->second.first / c.df);
    const double se = c.sd * std::sqrt(1.0 / c.main_runs + 1.0 / c.tune_runs);
    c.t = se > 0.0 ? (c.tune_mean - c.main_mean) / se
                   : (c.tune_mean == c.main_mean ? 0.0 : std::copysign(INFINITY, c.tune_mean - c.main_mean));
    check.cells.push_back(std::move(c));
  }
  if (check.cells.empty()) return std::nullopt;
  const double per_cell = family_alpha / double(check.cells.size());
  for (TuneSeedCell& c : check.cells) {
    c.critical = student_t_quantile(1.0 - per_cell / 2.0, c.df);
    c.disagrees = std::abs(c.t) > c.critical;
  }
  return check;
}

std::string tune_seed_warning(const TuneSeedCheck& check) {
  std::string cells;
  for (const TuneSeedCell& c : check.cells) {
    if (!c.disagrees) continue;
    cells += std::string(cells.empty() ? "" : "; ") + c.group + " at N=" + significant(c.params, 3) + ", D=" +
             significant(c.tokens, 3) + ": tune " + significant(c.tune_mean, 4) + " against " +
             significant(c.main_mean, 4) + " (t = " + significant(c.t, 3) + ")";
  }
  if (cells.empty()) return {};
  return "the tune stage's runs at the pick disagree with the main seeds beyond chance at " +
         std::to_string(check.disagreeing()) + " of " + std::to_string(check.cells.size()) +
         " configurations (" + cells + "): the main seeds may not carry the result to other seeds (a bimodal "
         "outcome, heavy tails, a pick won by luck); run more seeds there";
}

}  // namespace gammalab
