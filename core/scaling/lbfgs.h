#pragma once
// Multi-start L-BFGS (Ceres' gradient solver), shared by the built-in laws (core/scaling/fit.h) and the laws
// written as files (core/scaling/law_form_fit.h): each start is one solve at tight tolerances, and the kept
// optimum is the lowest objective, ties to the lowest start index, so the outcome never depends on threads.
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <ceres/first_order_function.h>

namespace gammalab {

struct LbfgsResult {
  std::vector<double> x;
  double cost = std::numeric_limits<double>::infinity();  // infinity when no usable solution
  bool converged = false;                                  // Ceres reported CONVERGENCE
  std::string message;                                     // Ceres' termination type
};

// One solve from `start`. A function that returns false at a point (outside the law's domain) makes the line
// search step back.
LbfgsResult minimise_lbfgs(const ceres::FirstOrderFunction& function, std::vector<double> start, int max_iterations);

// Every start solved on up to `threads` threads; `make_function` builds the objective once per solve's use.
struct MultiStart {
  std::vector<LbfgsResult> results;  // per start
  std::vector<std::size_t> order;    // by cost, ties by start index
  int converged = 0;                 // starts that converged
  // The best distinct optima (within 1e-4 relative in every coordinate), at most `warm_starts`.
  std::vector<std::vector<double>> best_optima;
  const LbfgsResult* best() const { return order.empty() ? nullptr : &results[order.front()]; }
};
MultiStart minimise_from_each(const ceres::FirstOrderFunction& function, const std::vector<std::vector<double>>& starts,
                              int max_iterations, int threads, int warm_starts);

}  // namespace gammalab
