#pragma once
// The Hoffmann et al. (2022) Approach-3 objective, generalised so one class serves every law:
//   f(theta) = sum_i Huber_delta( LSE(e, c_i1 - x1·x_i1, c_i2 - x2·x_i2, ...) - ln L_i )
// where e is theta[e_index], each term t has an exponent theta[exponent_index[t]] shared by all points and
// a log-coefficient theta[coef[i][t]] that may differ per point (one coefficient per group for shared fits).
// Closed-form gradient: d LSE / d u_t = softmax(u)_t, Huber'(r) = clamp(r, -delta, delta).
#include <vector>

#include <ceres/first_order_function.h>

namespace gammalab {

struct LseDesign {
  int num_parameters = 0;
  int e_index = 0;
  std::vector<int> exponent_index;  // per term
  std::vector<double> y;            // ln L per point
  std::vector<double> x;            // point-major: x[i * terms + t] (ln N, ln D or ln C)
  std::vector<int> coef;            // point-major: parameter index of the term's log-coefficient
  int terms() const { return static_cast<int>(exponent_index.size()); }
  int points() const { return static_cast<int>(y.size()); }
};

double huber(double r, double delta);
double huber_derivative(double r, double delta);
// ln(sum_j exp(u_j)), shifted by the maximum so large exponents do not overflow.
double log_sum_exp(const double* u, int n);

class HuberLseObjective final : public ceres::FirstOrderFunction {
 public:
  HuberLseObjective(const LseDesign& design, double delta) : design_(design), delta_(delta) {}
  bool Evaluate(const double* parameters, double* cost, double* gradient) const override;
  int NumParameters() const override { return design_.num_parameters; }
  // Model prediction ln L for point i, for tests and residual reports.
  double predict_log(const double* parameters, int i) const;

 private:
  const LseDesign& design_;  // owned by the caller, outlives the solve
  double delta_;
};

}  // namespace gammalab
