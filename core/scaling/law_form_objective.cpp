#include "core/scaling/law_form_objective.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include <ceres/jet.h>

#include "core/scaling/objective.h"

namespace gammalab {

namespace {

// Sum over points of Huber_delta(ln L(theta(z), x_i) - y_i), with its gradient in z by a Jet of N derivatives.
// A point where the law is not a finite positive number makes the evaluation fail: the line search steps back.
template <int N>
class LawFormObjective final : public ceres::FirstOrderFunction {
 public:
  LawFormObjective(const LawForm& form, const Points& points, double delta)
      : form_(form), points_(points), delta_(delta) {}

  int NumParameters() const override { return static_cast<int>(form_.parameters.size()); }

  bool Evaluate(const double* z, double* cost, double* gradient) const override {
    return gradient == nullptr ? evaluate<double>(z, cost, nullptr) : evaluate<ceres::Jet<double, N>>(z, cost, gradient);
  }

 private:
  template <typename T>
  bool evaluate(const double* z, double* cost, double* gradient) const {
    const std::size_t np = form_.parameters.size();
    std::vector<T> slots(np);  // the parameters; a point's values are plain numbers (expression_program.h)
    for (std::size_t k = 0; k < np; ++k) {
      if constexpr (std::is_same_v<T, double>) {
        slots[k] = parameter_from_search(form_.parameters[k], z[k]);
      } else {
        slots[k] = parameter_from_search(form_.parameters[k], T(z[k], static_cast<int>(k)));
      }
    }
    ExpressionStack<T> stack;
    *cost = 0.0;
    if (gradient != nullptr) std::fill(gradient, gradient + np, 0.0);
    for (std::size_t i = 0; i < points_.y.size(); ++i) {
      const T loss = evaluate_program(form_.program, slots.data(), static_cast<int>(np), points_.x[i].data(), stack);
      double value;
      if constexpr (std::is_same_v<T, double>) value = loss; else value = loss.a;
      if (!(value > 0.0) || !std::isfinite(value)) return false;
      using std::log;
      const T r = log(loss) - T(points_.y[i]);
      double residual;
      if constexpr (std::is_same_v<T, double>) residual = r; else residual = r.a;
      *cost += huber(residual, delta_);
      if constexpr (!std::is_same_v<T, double>) {
        const double d = huber_derivative(residual, delta_);
        for (std::size_t k = 0; k < np; ++k) {
          if (!std::isfinite(r.v[k])) return false;
          gradient[k] += d * r.v[k];
        }
      }
    }
    return std::isfinite(*cost);
  }

  const LawForm& form_;
  const Points& points_;
  double delta_;
};

// The Jet carries exactly as many derivatives as the law has parameters: the derivative work of every
// operation is proportional to it (a law of 5 parameters in Jets of 8 was 1.5x slower).
template <int N>
std::unique_ptr<ceres::FirstOrderFunction> objective_of_size(const LawForm& form, const Points& points, double delta) {
  if constexpr (N < law_form_limits::kMaxParameters) {
    if (static_cast<int>(form.parameters.size()) > N) return objective_of_size<N + 1>(form, points, delta);
  }
  return std::make_unique<LawFormObjective<N>>(form, points, delta);
}

}  // namespace

std::unique_ptr<ceres::FirstOrderFunction> law_form_objective(const LawForm& form, const Points& points, double delta) {
  return objective_of_size<1>(form, points, delta);
}

}  // namespace gammalab
