// Profile of the shared-exponent multiplier (core/scaling/profile.h).
#include "core/scaling/profile.h"

#include <algorithm>
#include <cmath>

#include <boost/math/tools/roots.hpp>

#include "core/scaling/quantiles.h"

namespace gammalab {

namespace {

constexpr int kGrid = 81;
const double kHalfWidth = std::log(8.0);

// The best objective with ln m fixed: one law over the baseline and the variant shifted by m.
LawFit refit_at(double log_m, const std::vector<RunPoint>& base, const std::vector<RunPoint>& variant,
                const std::vector<std::vector<double>>& starts, const FitSettings& settings) {
  std::vector<RunPoint> stacked = base;
  for (RunPoint r : variant) {
    r.compute = run_compute(r) * std::exp(log_m);
    stacked.push_back(r);
  }
  return minimise_from_starts(law_design(LawKind::c, stacked), starts, settings, 1);
}

}  // namespace

std::optional<ProfileRange> profile_multiplier(const std::vector<RunPoint>& base_frontier,
                                               const std::vector<RunPoint>& variant_frontier, const LawFit& shared,
                                               const FitSettings& settings, double confidence) {
  const std::size_t points = base_frontier.size() + variant_frontier.size();
  if (points < 5 || shared.theta.size() != 4 || !std::isfinite(shared.objective)) return std::nullopt;
  const auto& t = shared.theta;  // [e, alpha, a_baseline, a_variant]
  const double fitted = (t[2] - t[3]) / t[1];
  const double centre = std::isfinite(fitted) && std::abs(fitted) < std::log(1e3) ? fitted : 0.0;
  FitSettings fixed = settings;
  fixed.huber_delta = shared.huber_delta > 0.0 ? shared.huber_delta : settings.huber_delta;
  fixed.scale_delta = false;
  std::vector<double> log_m(kGrid), objective(kGrid);
  std::vector<double> previous = {t[0], t[1], t[2]};
  for (int j = 0; j < kGrid; ++j) {
    log_m[j] = centre + kHalfWidth * (2.0 * j / (kGrid - 1) - 1.0);
    const LawFit fit = refit_at(log_m[j], base_frontier, variant_frontier, {{t[0], t[1], t[2]}, previous}, fixed);
    objective[j] = std::isfinite(fit.objective) ? fit.objective : HUGE_VAL;
    if (std::isfinite(fit.objective)) previous = fit.theta;
  }
  double best = shared.objective;
  for (double o : objective) best = std::min(best, o);
  const double sigma2 = 2.0 * best / static_cast<double>(points - 4);
  const double z = normal_quantile(0.5 * (1.0 + confidence));
  ProfileRange range;
  range.tolerance = std::max(0.5 * sigma2 * z * z, 1e-12 * (1.0 + best));
  auto within = [&](int j) { return objective[j] - best <= range.tolerance; };
  const int at = static_cast<int>(std::min_element(objective.begin(), objective.end()) - objective.begin());
  int lo = at, hi = at;
  while (lo > 0 && within(lo - 1)) --lo;
  while (hi < kGrid - 1 && within(hi + 1)) ++hi;
  range.open_lo = lo == 0;
  range.open_hi = hi == kGrid - 1;
  // Each closed end lies between the last grid value within the tolerance and the first beyond it: found there
  // by bracketed root finding on the profile's rise minus the tolerance, so that a range narrower than one grid
  // step is a range, not a point, and no end is rounded inward to the grid.
  auto rise = [&](double x) {
    const LawFit fit = refit_at(x, base_frontier, variant_frontier, {{t[0], t[1], t[2]}, previous}, fixed);
    return (std::isfinite(fit.objective) ? fit.objective : HUGE_VAL) - best - range.tolerance;
  };
  auto crossing = [&](int inner, int outer) {
    const double f_inner = objective[inner] - best - range.tolerance, f_outer = objective[outer] - best - range.tolerance;
    if (!(f_inner <= 0.0) || !(f_outer > 0.0) || !std::isfinite(f_outer)) return log_m[inner];
    std::uintmax_t iterations = 40;
    const bool below = outer < inner;  // TOMS 748 takes its bracket in increasing order
    const auto [a, b] = boost::math::tools::toms748_solve(
        rise, log_m[below ? outer : inner], log_m[below ? inner : outer], below ? f_outer : f_inner,
        below ? f_inner : f_outer, boost::math::tools::eps_tolerance<double>(30), iterations);
    return 0.5 * (a + b);
  };
  range.lo = std::exp(range.open_lo ? log_m[lo] : crossing(lo, lo - 1));
  range.hi = std::exp(range.open_hi ? log_m[hi] : crossing(hi, hi + 1));
  return range;
}

}  // namespace gammalab
