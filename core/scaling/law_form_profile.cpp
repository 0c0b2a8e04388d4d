#include "core/scaling/law_form_profile.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/tools/roots.hpp>

#include "core/scaling/lbfgs.h"

namespace gammalab {

namespace {

constexpr int kGridHalf = 20;  // 41 values
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The law's objective with one search coordinate held at a value: the other coordinates are the optimiser's.
class Held final : public ceres::FirstOrderFunction {
 public:
  Held(const ceres::FirstOrderFunction& full, std::size_t index, double z) : full_(full), index_(index), z_(z) {}
  int NumParameters() const override { return full_.NumParameters() - 1; }
  bool Evaluate(const double* x, double* cost, double* gradient) const override {
    std::vector<double> z(static_cast<std::size_t>(full_.NumParameters()));
    for (std::size_t i = 0, j = 0; i < z.size(); ++i) z[i] = i == index_ ? z_ : x[j++];
    std::vector<double> g(z.size());
    if (!full_.Evaluate(z.data(), cost, gradient == nullptr ? nullptr : g.data())) return false;
    if (gradient != nullptr) {
      for (std::size_t i = 0, j = 0; i < z.size(); ++i) {
        if (i != index_) gradient[j++] = g[i];
      }
    }
    return true;
  }

 private:
  const ceres::FirstOrderFunction& full_;
  std::size_t index_;
  double z_;
};

std::vector<double> without(const std::vector<double>& z, std::size_t index) {
  std::vector<double> out;
  for (std::size_t i = 0; i < z.size(); ++i) {
    if (i != index) out.push_back(z[i]);
  }
  return out;
}

}  // namespace

std::optional<LawFormProfile> profile_law_parameter(const LawForm& form, const Points& points, double delta,
                                                    const std::vector<double>& z_hat, double objective,
                                                    std::size_t index, double confidence, int max_iterations) {
  const std::size_t np = form.parameters.size();
  if (points.y.size() <= np || np < 2) return std::nullopt;
  const LawParameter& p = form.parameters[index];
  const bool log = p.scale == ParameterScale::kLog;
  const auto full = law_form_objective(form, points, delta);
  const double sigma2 = 2.0 * objective / static_cast<double>(points.y.size() - np);
  LawFormProfile out;
  out.parameter = p.name;
  out.tolerance = sigma2 * boost::math::quantile(boost::math::chi_squared_distribution<double>(1.0), confidence) / 2.0;

  // The grid on the parameter's own scale (u: the value, or its log), inside the searched bounds.
  const double estimate = p.from_search(z_hat[index]);
  const double u_hat = log ? std::log(estimate) : estimate;
  const double half = log ? std::log(16.0) : 4.0 * std::max(std::abs(estimate), 1e-3);
  const double a = p.searched_lower(), b = p.searched_upper();
  const double margin = 1e-9 * (1.0 + std::abs(u_hat));
  const double u_lo = std::max(u_hat - half, a + margin), u_hi = std::min(u_hat + half, b - margin);
  const auto value_of = [&](double u) { return log ? std::exp(u) : u; };

  // The objective with the parameter held at u, warm-started from `start` (the rest of the search vector).
  std::vector<double> warm = without(z_hat, index);
  const auto rise = [&](double u, std::vector<double>& start) {
    const Held held(*full, index, p.to_search(value_of(u)));
    const MultiStart solved = minimise_from_each(held, {start, without(z_hat, index)}, max_iterations, 1, 1);
    const LbfgsResult* best = solved.best();
    if (best == nullptr || !std::isfinite(best->cost)) return kNaN;
    start = best->x;
    return best->cost - objective;
  };

  for (const int direction : {-1, +1}) {
    const double edge = direction < 0 ? u_lo : u_hi;
    const double step = (edge - u_hat) / kGridHalf;
    std::vector<double> start = warm;
    double inside = u_hat;
    std::vector<double> inside_start = start;
    bool closed = false;
    for (int j = 1; j <= kGridHalf && step != 0.0; ++j) {
      const double u = u_hat + step * j;
      const double r = rise(u, start);
      if (std::isnan(r)) break;  // outside the law's domain: the range ends at the last value inside
      if (r > out.tolerance) {
        std::vector<double> refine_start = inside_start;
        const auto gap = [&](double v) {
          std::vector<double> s = refine_start;
          const double g = rise(v, s);
          return std::isnan(g) ? out.tolerance : g - out.tolerance;
        };
        std::uintmax_t iterations = 40;
        const auto [x0, x1] = boost::math::tools::toms748_solve(
            gap, std::min(inside, u), std::max(inside, u), boost::math::tools::eps_tolerance<double>(30), iterations);
        // Never rounded inward: the end is the outer end of the bracket the solver left.
        inside = direction < 0 ? std::min(x0, x1) : std::max(x0, x1);
        closed = true;
        break;
      }
      inside = u;
      inside_start = start;
    }
    (direction < 0 ? out.lo : out.hi) = value_of(inside);
    (direction < 0 ? out.open_lo : out.open_hi) = !closed;
  }
  return out;
}

}  // namespace gammalab
