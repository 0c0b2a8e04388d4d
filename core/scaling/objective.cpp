#include "core/scaling/objective.h"

#include <algorithm>
#include <cmath>

namespace gammalab {

namespace {
constexpr int kMaxTerms = 4;  // e plus up to three power terms
}

double huber(double r, double delta) {
  const double a = std::abs(r);
  return a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
}

double huber_derivative(double r, double delta) { return std::clamp(r, -delta, delta); }

double log_sum_exp(const double* u, int n) {
  double m = u[0];
  for (int j = 1; j < n; ++j) m = std::max(m, u[j]);
  if (!std::isfinite(m)) return m;
  double s = 0.0;
  for (int j = 0; j < n; ++j) s += std::exp(u[j] - m);
  return m + std::log(s);
}

double HuberLseObjective::predict_log(const double* p, int i) const {
  const int terms = design_.terms();
  double u[kMaxTerms];
  u[0] = p[design_.e_index];
  for (int t = 0; t < terms; ++t) {
    const auto k = static_cast<std::size_t>(i * terms + t);
    u[t + 1] = p[design_.coef[k]] - p[design_.exponent_index[static_cast<std::size_t>(t)]] * design_.x[k];
  }
  return log_sum_exp(u, terms + 1);
}

bool HuberLseObjective::Evaluate(const double* p, double* cost, double* gradient) const {
  const int terms = design_.terms();
  const int n = design_.points();
  if (gradient != nullptr) std::fill(gradient, gradient + design_.num_parameters, 0.0);
  double total = 0.0;
  double u[kMaxTerms];
  for (int i = 0; i < n; ++i) {
    u[0] = p[design_.e_index];
    double m = u[0];
    for (int t = 0; t < terms; ++t) {
      const auto k = static_cast<std::size_t>(i * terms + t);
      u[t + 1] = p[design_.coef[k]] - p[design_.exponent_index[static_cast<std::size_t>(t)]] * design_.x[k];
      m = std::max(m, u[t + 1]);
    }
    double s = 0.0;
    for (int j = 0; j <= terms; ++j) {
      u[j] = std::exp(u[j] - m);  // reuse u for the softmax numerators
      s += u[j];
    }
    const double r = m + std::log(s) - design_.y[static_cast<std::size_t>(i)];
    total += huber(r, delta_);
    if (gradient != nullptr) {
      const double g = huber_derivative(r, delta_) / s;
      gradient[design_.e_index] += g * u[0];
      for (int t = 0; t < terms; ++t) {
        const auto k = static_cast<std::size_t>(i * terms + t);
        gradient[design_.coef[k]] += g * u[t + 1];
        gradient[design_.exponent_index[static_cast<std::size_t>(t)]] -= g * u[t + 1] * design_.x[k];
      }
    }
  }
  *cost = total;
  // Ceres treats a false return as an infeasible step and shrinks the line search.
  return std::isfinite(total);
}

}  // namespace gammalab
