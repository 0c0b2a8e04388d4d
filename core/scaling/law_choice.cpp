// Choosing a law's form by prediction (core/scaling/law_choice.h).
#include "core/scaling/law_choice.h"

#include <cmath>
#include <limits>

namespace gammalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// AICc from the ln-residuals at n configurations' means of a law of k parameters: n ln(RSS/n) + 2k +
// 2k(k+1)/(n-k-1); NaN where n - k - 1 <= 0 or the law fits exactly.
double aicc(double rss, int n, double k) {
  if (n - k - 1.0 <= 0.0 || !(rss > 0.0)) return kNaN;
  return n * std::log(rss / n) + 2.0 * k + 2.0 * k * (k + 1.0) / (n - k - 1.0);
}

double group_aicc(const GroupFit& g, int& configurations) {
  const auto k = static_cast<double>(g.fit.parameters.size());
  double rss = 0.0;
  int n = 0;
  for (const CellSummary& cell : g.sizes) {
    const double predicted = predict_loss(g.fit, RunPoint{cell.params, cell.tokens, cell.compute, cell.mean, g.group, ""});
    if (!(predicted > 0.0) || !(cell.mean > 0.0)) return kNaN;
    const double r = std::log(predicted) - std::log(cell.mean);
    rss += r * r;
    ++n;
  }
  configurations += n;
  return aicc(rss, n, k);
}

}  // namespace

LawScore score_law(const FitReport& r) {
  LawScore s;
  s.law = std::string(law_name(r.law));
  double error = 0.0;
  s.aicc = 0.0;
  for (const GroupFit& g : r.groups) {
    s.parameters = static_cast<int>(g.fit.parameters.size());
    if (g.holdout && !g.holdout->runs.empty()) {
      error += g.holdout->mean_abs_relative_error;
      ++s.holdout_groups;
      s.holdout_runs += static_cast<int>(g.holdout->runs.size());
    }
    s.aicc += group_aicc(g, s.configurations);
  }
  s.holdout_error = s.holdout_groups > 0 ? error / s.holdout_groups : kNaN;
  if (r.law == LawKind::isoflop) s.aicc = kNaN;
  return s;
}

LawScore score_law(const LawFormReport& r) {
  LawScore s;
  s.law = r.law;
  s.parameters = static_cast<int>(r.parameters.size());
  double error = 0.0;
  s.aicc = 0.0;
  for (const LawFormGroupFit& g : r.groups) {
    if (g.holdout_runs > 0 && std::isfinite(g.holdout_error)) {
      error += g.holdout_error;
      ++s.holdout_groups;
      s.holdout_runs += g.holdout_runs;
    }
    s.aicc += aicc(g.residual_sum_of_squares, g.configurations, s.parameters);
    s.configurations += g.configurations;
  }
  s.holdout_error = s.holdout_groups > 0 ? error / s.holdout_groups : kNaN;
  return s;
}

LawChoice choose_law(std::vector<LawScore> scores) {
  LawChoice choice;
  choice.scores = std::move(scores);
  for (std::size_t i = 0; i < choice.scores.size(); ++i) {
    const LawScore& s = choice.scores[i];
    if (std::isfinite(s.holdout_error) && (!choice.best || s.holdout_error < choice.scores[*choice.best].holdout_error)) {
      choice.best = i;
    }
    if (std::isfinite(s.aicc) && (!choice.best_aicc || s.aicc < choice.scores[*choice.best_aicc].aicc)) {
      choice.best_aicc = i;
    }
  }
  return choice;
}

LawChoice choose_law(const std::vector<FitReport>& reports) {
  std::vector<LawScore> scores;
  for (const FitReport& r : reports) scores.push_back(score_law(r));
  return choose_law(std::move(scores));
}

nlohmann::json to_json(const LawChoice& choice) {
  const auto number = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  nlohmann::json scores = nlohmann::json::array();
  for (const LawScore& s : choice.scores) {
    scores.push_back({{"law", s.law},
                      {"parameters", s.parameters},
                      {"holdout_error", number(s.holdout_error)},
                      {"holdout_groups", s.holdout_groups},
                      {"holdout_runs", s.holdout_runs},
                      {"aicc", number(s.aicc)},
                      {"configurations", s.configurations}});
  }
  const auto name = [&](const std::optional<std::size_t>& i) {
    return i ? nlohmann::json(choice.scores[*i].law) : nlohmann::json(nullptr);
  };
  return {{"scores", std::move(scores)}, {"best", name(choice.best)}, {"best_aicc", name(choice.best_aicc)}};
}

}  // namespace gammalab
