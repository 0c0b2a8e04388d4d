// The range of every metric (see metric_check.h).
#include "core/metric_check.h"

#include <algorithm>
#include <cmath>

#include "core/decimal_text.h"
#include "core/limits.h"
#include "core/metric_names.h"

namespace gammalab {

namespace {

// Metrics whose value may be below zero: the sharpness estimate is the top Hessian eigenvalue, which a
// non-convex loss can make negative. Every other metric is a loss, a rate, a norm or a count.
bool may_be_negative(std::string_view name) {
  return name == metric_names::kSharpness || metric_names::is_user_metric(name);  // (a user's metric: any sign)
}

}  // namespace

std::string metric_point_error(const MetricPoint& p) {
  const bool known = std::find(metric_names::kAll.begin(), metric_names::kAll.end(), p.name) != metric_names::kAll.end() ||
                     p.name == metric_names::kBranchPoint || metric_names::is_user_metric(p.name);
  if (!known) {
    // Quoted only when short: the name is the reporter's text.
    const std::string shown = p.name.size() <= 64 ? "'" + p.name + "'" : "of " + std::to_string(p.name.size()) + " bytes";
    if (p.name.starts_with(metric_names::kUserPrefix)) {
      return "metric name " + shown + ": a metric of your own is \"" + std::string(metric_names::kUserPrefix) +
             "\" and then 1 to " + std::to_string(metric_names::kMaxUserNameBytes) +
             " letters, digits, '_', '-', '.' or '/'";
    }
    std::string known_names;
    for (std::string_view name : metric_names::kAll) known_names += (known_names.empty() ? "" : ", ") + std::string(name);
    known_names += ", " + std::string(metric_names::kBranchPoint);
    return "metric name " + shown + ": not a metric gammalab-train reports (" + known_names +
           "), nor one of your own (\"" + std::string(metric_names::kUserPrefix) + "NAME\")";
  }
  const std::string what = "metric '" + p.name + "' at step " + std::to_string(p.step) + ": ";
  if (p.step < 0 || p.step > limits::kMaxSteps) {
    return what + "step " + std::to_string(p.step) + " is outside [0, " + std::to_string(limits::kMaxSteps) + "]";
  }
  if (p.tokens < 0 || p.tokens > limits::kMaxTokens) {
    return what + "tokens " + std::to_string(p.tokens) + " is outside [0, " + std::to_string(limits::kMaxTokens) + "]";
  }
  if (!std::isfinite(p.value)) return what + "value " + number_text(p.value) + " is not finite";
  if (p.value < 0 && !may_be_negative(p.name)) return what + "value " + number_text(p.value) + " is negative";
  return "";
}

}  // namespace gammalab
