#pragma once
// The objective of a law written as a file (core/scaling/law_form.h): the sum over points of
// Huber_delta(ln L(theta(z), x_i) - y_i), where z is the unconstrained search vector (law_form.h's map to each
// parameter's bounds), with its gradient by automatic differentiation through the expression (a ceres::Jet of
// exactly as many derivatives as the law has parameters). A point where the law is not a finite positive number
// makes the evaluation fail, and the line search steps back. Shared by the fit (law_form_fit.h) and the
// profiles (law_form_profile.h).
#include <memory>
#include <vector>

#include <ceres/first_order_function.h>

#include "core/scaling/law_form.h"

namespace gammalab {

// The points a fit sees: ln of each configuration's mean loss at its values (x[i] in the form's variable order).
struct Points {
  std::vector<std::vector<double>> x;
  std::vector<double> y;
};

std::unique_ptr<ceres::FirstOrderFunction> law_form_objective(const LawForm& form, const Points& points, double delta);

}  // namespace gammalab
