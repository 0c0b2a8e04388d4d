#pragma once
// One rule across sizes for a tuned value (tune.size_rule, docs/sweeps.md): rather than an independent pick per
// size, whose noise reaches the comparison at every size, the log of the best value is fitted as a line in log N
// over the sizes of a family (groups alike but for their model fields: one variant), and every main job of the
// family takes the rule's value at its own N. Each size's best is read from its tune curve, pooled over its tune
// seeds: the vertex of the parabola through the pick and its two neighbours (log value against mean loss), so a
// size whose curve is flat between two values does not jump a grid step.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gammalab {

struct TuneRuleSize {
  nlohmann::json group = nlohmann::json::object();  // the tune group's key
  double params = 0.0;     // N: the sweep's `params` at the group's shape (baseline model, activated)
  double log_best = 0.0;   // log of the size's best value (the vertex; the pick itself at an edge of its grid)
  bool at_edge = false;    // the pick was at an edge: the vertex is the pick, and the rule leans on it
};

struct TuneRule {
  nlohmann::json family = nlohmann::json::object();  // the group key without its model fields
  std::string field;
  std::vector<TuneRuleSize> sizes;  // by N
  double intercept = 0.0;           // log value = intercept + slope log N
  double slope = 0.0;
  double slope_se = 0.0;            // ordinary least squares, `df` = sizes - 2 degrees of freedom
  double residual_sd = 0.0;         // of the sizes' log best values about the line
  int df = 0;
  std::string problem;              // why there is no rule (fewer than 3 sizes)
  bool ok() const { return problem.empty(); }
  double value_at(double params) const;  // exp(intercept + slope log N)
};

// The vertex (in x) of the parabola through three points with x0 < x1 < x2, kept within [x0, x2]; x1 when they
// do not curve upwards.
double parabola_vertex(double x0, double y0, double x1, double y1, double x2, double y2);

// The line through the sizes' log best values (at least 3 sizes, else `problem` says so).
TuneRule fit_tune_rule(nlohmann::json family, std::string field, std::vector<TuneRuleSize> sizes);

nlohmann::json to_json(const TuneRule& rule);
TuneRule tune_rule_from_json(const nlohmann::json& json);  // throws nlohmann::json::exception

}  // namespace gammalab
