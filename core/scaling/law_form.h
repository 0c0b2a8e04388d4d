#pragma once
// A scaling-law form written as data: a law file (YAML) names the law's variables (columns of the points),
// its parameters with bounds and a grid of starts, and its loss as an expression in the language sweeps use
// (core/expression.h), e.g.
//
//   law: chinchilla
//   source: Hoffmann et al. (2022), Approach 3, arXiv:2203.15556
//   variables: [params, tokens]
//   loss: E + A / params^alpha + B / tokens^beta
//   parameters:
//     E: {bounds: [0, .inf], scale: log, starts: [exp(-1), exp(-0.5), 1, exp(0.5), exp(1)]}
//     alpha: {bounds: [-.inf, .inf], starts: [0, 0.5, 1, 1.5, 2]}
//     ...
//
// The file is hostile until checked: its size, its nesting, its expression (length, depth, size, names,
// functions), the number of parameters and variables and of starts in the grid are all bounded, and every
// problem is a ConfigError naming the field, the limit and the value. core/scaling/law_form_fit.h fits it.
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/expression.h"

namespace gammalab {

namespace law_form_limits {
// Shipped law files are under 2 KB; a law is a formula, not a payload.
inline constexpr std::size_t kMaxFileBytes = 64 * 1024;
inline constexpr int kMaxYamlDepth = 8;
// The fit differentiates with a ceres::Jet of this many derivatives (the largest published laws have ~10).
inline constexpr int kMaxParameters = 16;
inline constexpr int kMaxVariables = 16;
inline constexpr std::size_t kMaxStartsPerParameter = 64;
// Starts are tried one L-BFGS run each; the Chinchilla grid of Hoffmann et al. has 4,500.
inline constexpr std::size_t kMaxStarts = 20000;
}  // namespace law_form_limits

// How a parameter is searched: linear (the parameter itself) or log (its logarithm; the parameter is positive),
// then mapped to its bounds: none (−inf, inf), one (a + e^z, b − e^z) or both (a + (b − a)(1 + tanh z)/2).
enum class ParameterScale { kLinear, kLog };

struct LawParameter {
  std::string name;
  double lower = 0.0;  // may be -inf (linear) or 0 (log: unbounded below in the logarithm)
  double upper = 0.0;  // may be +inf
  ParameterScale scale = ParameterScale::kLinear;
  std::vector<double> starts;  // strictly inside the bounds

  // The bounds on the scale searched (ln of them for a log parameter; ln 0 = -inf).
  double searched_lower() const;
  double searched_upper() const;
  // The unconstrained value z the optimiser sees, and back (parameter_from_search below, for any scalar).
  double to_search(double value) const;
  double from_search(double z) const;
  // Within a millionth of the searched range of a finite bound (for a log parameter, in ln).
  bool at_bound(double value) const;
};

// The parameter's value from its unconstrained z, for a double or a ceres::Jet (so the fit's derivatives
// include the map's).
template <typename T>
T parameter_from_search(const LawParameter& parameter, const T& z) {
  using std::exp;
  using std::tanh;
  const double a = parameter.searched_lower(), b = parameter.searched_upper();
  const bool has_a = std::isfinite(a), has_b = std::isfinite(b);
  const T u = !has_a && !has_b ? z
              : !has_b         ? T(a) + exp(z)
              : !has_a         ? T(b) - exp(z)
                               : T(a) + T(b - a) * (T(1.0) + tanh(z)) * T(0.5);
  T value = parameter.scale == ParameterScale::kLog ? exp(u) : u;
  // exp(ln b) can round past b: the value stays inside its bounds to the last bit.
  if (value > T(parameter.upper)) value = T(parameter.upper);
  if (value < T(parameter.lower)) value = T(parameter.lower);
  return value;
}

struct LawForm {
  std::string name;
  std::string source;                  // where the form comes from (a citation), echoed in reports
  std::vector<std::string> variables;  // columns of the points, in the order of a row's values
  std::vector<LawParameter> parameters;
  Expression loss;                     // the predicted loss L, which must come out positive
  ExpressionProgram program;           // slots: the parameters, then the variables
  std::optional<double> huber_delta;   // settings.huber_delta: the Huber delta in ln L, used as given
  // The variables that identify a run family, the bootstrap's unit (core/scaling/bootstrap.h): runs of one
  // group, seed and these values share their seed's noise (a run and its cooldown branches, or runs of one
  // size and seed at several budgets) and are drawn together. Default: the first variable (the model size).
  std::vector<std::size_t> family;     // indices into variables

  std::size_t start_count() const;     // the grid's size: the product of the parameters' start counts
};

// Reads a law file. `origin` names it in messages. Throws ConfigError.
LawForm parse_law_form(const std::string& yaml_text, const std::string& origin);
LawForm read_law_form(const std::string& path);

// The expression's value at one row (its values in the order of form.variables) and the given parameters, as it
// comes out: inf, NaN or negative included.
double law_form_value(const LawForm& form, const std::vector<double>& parameters, const std::vector<double>& values);
// The predicted loss there: law_form_value where it is a finite positive number, else NaN (outside the law's
// domain).
double law_form_loss(const LawForm& form, const std::vector<double>& parameters, const std::vector<double>& values);

}  // namespace gammalab
