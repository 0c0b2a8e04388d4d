#include "core/scaling/lbfgs.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <ceres/gradient_problem.h>
#include <ceres/gradient_problem_solver.h>

#include "core/scaling/fit_parallel.h"

namespace gammalab {

namespace {

// Ceres takes ownership of the function it solves; the caller's is shared between threads and outlives every
// solve, so each problem gets this non-owning view of it.
class Borrowed final : public ceres::FirstOrderFunction {
 public:
  explicit Borrowed(const ceres::FirstOrderFunction& f) : f_(f) {}
  bool Evaluate(const double* x, double* cost, double* gradient) const override { return f_.Evaluate(x, cost, gradient); }
  int NumParameters() const override { return f_.NumParameters(); }

 private:
  const ceres::FirstOrderFunction& f_;
};

bool same_optimum(const std::vector<double>& a, const std::vector<double>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::abs(a[i] - b[i]) > 1e-4 * (1.0 + std::abs(a[i]))) return false;
  }
  return true;
}

}  // namespace

LbfgsResult minimise_lbfgs(const ceres::FirstOrderFunction& function, std::vector<double> start, int max_iterations) {
  ceres::GradientProblemSolver::Options options;
  options.line_search_direction_type = ceres::LBFGS;
  options.max_num_iterations = max_iterations;
  // The Huber objective with delta = 1e-3 is tiny near the optimum; default tolerances stop L-BFGS early,
  // which Besiroglu et al. (2024) identified as a source of bias in the original Chinchilla fit.
  options.function_tolerance = 1e-12;
  options.gradient_tolerance = 1e-14;
  options.parameter_tolerance = 1e-12;
  options.logging_type = ceres::SILENT;
  ceres::GradientProblem problem(new Borrowed(function));
  ceres::GradientProblemSolver::Summary summary;
  ceres::Solve(options, problem, start.data(), &summary);
  LbfgsResult result;
  result.converged = summary.termination_type == ceres::CONVERGENCE;
  result.message = ceres::TerminationTypeToString(summary.termination_type);
  result.cost = summary.IsSolutionUsable() && std::isfinite(summary.final_cost)
                    ? summary.final_cost
                    : std::numeric_limits<double>::infinity();
  result.x = std::move(start);
  return result;
}

MultiStart minimise_from_each(const ceres::FirstOrderFunction& function, const std::vector<std::vector<double>>& starts,
                              int max_iterations, int threads, int warm_starts) {
  MultiStart out;
  out.results.resize(starts.size());
  parallel_for(static_cast<int>(starts.size()), threads, [&](int i) {
    out.results[static_cast<std::size_t>(i)] =
        minimise_lbfgs(function, starts[static_cast<std::size_t>(i)], max_iterations);
  });
  out.order.resize(out.results.size());
  std::iota(out.order.begin(), out.order.end(), std::size_t{0});
  // Stable sort: equal costs keep start order, so the kept start is deterministic.
  std::stable_sort(out.order.begin(), out.order.end(),
                   [&](auto a, auto b) { return out.results[a].cost < out.results[b].cost; });
  for (const auto& r : out.results) out.converged += r.converged ? 1 : 0;
  for (auto i : out.order) {
    if (static_cast<int>(out.best_optima.size()) >= warm_starts) break;
    if (!std::isfinite(out.results[i].cost)) break;
    bool seen = false;
    for (const auto& kept : out.best_optima) seen = seen || same_optimum(kept, out.results[i].x);
    if (!seen) out.best_optima.push_back(out.results[i].x);
  }
  return out;
}

}  // namespace gammalab
