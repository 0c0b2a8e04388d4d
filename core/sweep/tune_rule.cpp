#include "core/sweep/tune_rule.h"

#include <algorithm>
#include <cmath>

namespace gammalab {

double TuneRule::value_at(double params) const { return std::exp(intercept + slope * std::log(params)); }

double parabola_vertex(double x0, double y0, double x1, double y1, double x2, double y2) {
  // The parabola's vertex from its three points (Numerical Recipes' parabolic interpolation step).
  const double p = (x1 - x0) * (y1 - y2);
  const double q = (x1 - x2) * (y1 - y0);
  const double denominator = p - q;
  // Upward curvature, in the sign convention of this formula: the middle point lies below the chord.
  const double chord = y0 + (y2 - y0) * (x1 - x0) / (x2 - x0);
  if (!(y1 < chord) || denominator == 0.0) return x1;
  const double vertex = x1 - 0.5 * ((x1 - x0) * p - (x1 - x2) * q) / denominator;
  return std::clamp(vertex, x0, x2);
}

TuneRule fit_tune_rule(nlohmann::json family, std::string field, std::vector<TuneRuleSize> sizes) {
  TuneRule rule;
  rule.family = std::move(family);
  rule.field = std::move(field);
  std::sort(sizes.begin(), sizes.end(), [](const TuneRuleSize& a, const TuneRuleSize& b) {
    return a.params < b.params || (a.params == b.params && a.group < b.group);
  });
  rule.sizes = std::move(sizes);
  const std::size_t k = rule.sizes.size();
  std::size_t distinct = 0;
  for (std::size_t i = 0; i < k; ++i) distinct += i == 0 || rule.sizes[i].params != rule.sizes[i - 1].params;
  if (distinct < 3) {
    rule.problem = "tune.size_rule needs picks at 3 or more sizes; this family has " + std::to_string(distinct);
    return rule;
  }
  double mx = 0.0, my = 0.0;
  for (const auto& s : rule.sizes) {
    mx += std::log(s.params);
    my += s.log_best;
  }
  mx /= double(k);
  my /= double(k);
  double sxx = 0.0, sxy = 0.0;
  for (const auto& s : rule.sizes) {
    const double dx = std::log(s.params) - mx;
    sxx += dx * dx;
    sxy += dx * (s.log_best - my);
  }
  rule.slope = sxy / sxx;
  rule.intercept = my - rule.slope * mx;
  double rss = 0.0;
  for (const auto& s : rule.sizes) {
    const double r = s.log_best - (rule.intercept + rule.slope * std::log(s.params));
    rss += r * r;
  }
  rule.df = static_cast<int>(k) - 2;
  rule.residual_sd = std::sqrt(rss / rule.df);
  rule.slope_se = rule.residual_sd / std::sqrt(sxx);
  return rule;
}

nlohmann::json to_json(const TuneRule& rule) {
  nlohmann::json sizes = nlohmann::json::array();
  for (const auto& s : rule.sizes) {
    sizes.push_back({{"group", s.group}, {"params", s.params}, {"log_best", s.log_best}, {"at_edge", s.at_edge}});
  }
  nlohmann::json out = {{"family", rule.family}, {"field", rule.field}, {"sizes", sizes}, {"problem", rule.problem}};
  if (rule.ok()) {
    out.update({{"intercept", rule.intercept}, {"slope", rule.slope}, {"slope_se", rule.slope_se},
                {"residual_sd", rule.residual_sd}, {"df", rule.df}});
  }
  return out;
}

TuneRule tune_rule_from_json(const nlohmann::json& json) {
  TuneRule rule;
  rule.family = json.at("family");
  rule.field = json.at("field").get<std::string>();
  rule.problem = json.at("problem").get<std::string>();
  for (const auto& s : json.at("sizes")) {
    rule.sizes.push_back({s.at("group"), s.at("params").get<double>(), s.at("log_best").get<double>(),
                          s.at("at_edge").get<bool>()});
  }
  if (rule.ok()) {
    rule.intercept = json.at("intercept").get<double>();
    rule.slope = json.at("slope").get<double>();
    rule.slope_se = json.at("slope_se").get<double>();
    rule.residual_sd = json.at("residual_sd").get<double>();
    rule.df = json.at("df").get<int>();
  }
  return rule;
}

}  // namespace gammalab
