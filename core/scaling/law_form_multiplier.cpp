#include "core/scaling/law_form_multiplier.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <boost/math/tools/minima.hpp>
#include <boost/math/tools/roots.hpp>

#include "core/scaling/compute_multiplier.h"
#include "core/scaling/law_form_fit.h"

namespace gammalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kSizeMargin = 100.0;  // the frontier's search over N: this factor beyond the sizes run
constexpr double kRootSpan = 46.0;     // ln of the factor (~1e20) beyond which C_b is not sought

int index_of(const LawForm& form, const char* name) {
  const auto it = std::find(form.variables.begin(), form.variables.end(), name);
  return it == form.variables.end() ? -1 : static_cast<int>(it - form.variables.begin());
}

// A row's budget: C (6·N·D, or its compute) for a compute frontier, N for the parameter frontier.
double budget_of(const LawForm& form, LawFrontier frontier, const std::vector<double>& values) {
  const int n = index_of(form, "params"), d = index_of(form, "tokens"), c = index_of(form, "compute");
  if (frontier == LawFrontier::kParams) return values[static_cast<std::size_t>(n)];
  if (c >= 0) return values[static_cast<std::size_t>(c)];
  return 6.0 * values[static_cast<std::size_t>(n)] * values[static_cast<std::size_t>(d)];
}

struct GroupRange {
  double budget_lo = kInf, budget_hi = 0.0, size_lo = kInf, size_hi = 0.0;
};

// m at one budget for one pair of parameter vectors; NaN where a frontier is not found.
double multiplier(const LawForm& form, const std::vector<double>& base, const std::vector<double>& variant,
                  const GroupRange& base_range, const GroupRange& variant_range, double budget) {
  const double target = law_form_frontier_loss(form, variant, budget, variant_range.size_lo, variant_range.size_hi);
  if (!std::isfinite(target)) return kNaN;
  const auto gap = [&](double ln_c) {
    return law_form_frontier_loss(form, base, std::exp(ln_c), base_range.size_lo, base_range.size_hi) - target;
  };
  // The bracket grows from a factor e either way until it holds the root, so that the frontier is read only as
  // far from the budget as the answer lies (its search over N covers sizes near the runs, not every budget).
  const double at = std::log(budget);
  double g_lo = gap(at), g_hi = g_lo, lo = at, hi = at;
  for (double step = 1.0; step <= kRootSpan; step *= 2.0) {
    if (g_lo < 0.0) g_lo = gap(lo = at - step);
    if (g_hi > 0.0) g_hi = gap(hi = at + step);
    if (std::isnan(g_lo) || std::isnan(g_hi)) return kNaN;  // off the frontier before the root
    if (g_lo >= 0.0 && g_hi <= 0.0) break;
  }
  if (g_hi > 0.0) return kInf;  // the baseline does not get that low within a factor of ~1e20
  if (g_lo < 0.0) return 0.0;   // the baseline is there with next to no compute
  if (g_lo == 0.0) return std::exp(lo) / budget;
  if (g_hi == 0.0) return std::exp(hi) / budget;
  std::uintmax_t iterations = 100;
  const auto [a, b] = boost::math::tools::toms748_solve(gap, lo, hi, g_lo, g_hi,
                                                        boost::math::tools::eps_tolerance<double>(40), iterations);
  return std::exp(0.5 * (a + b)) / budget;
}

}  // namespace

LawFrontier law_frontier(const LawForm& form) {
  const bool n = index_of(form, "params") >= 0, d = index_of(form, "tokens") >= 0, c = index_of(form, "compute") >= 0;
  const std::size_t named = static_cast<std::size_t>(n) + static_cast<std::size_t>(d) + static_cast<std::size_t>(c);
  if (named != form.variables.size()) return LawFrontier::kNone;
  if (n && d) return LawFrontier::kComputeOptimal;
  if (c && !n && !d) return LawFrontier::kCompute;
  if (n && !d && !c) return LawFrontier::kParams;
  return LawFrontier::kNone;
}

double law_form_frontier_loss(const LawForm& form, const std::vector<double>& theta, double budget, double size_lo,
                              double size_hi) {
  const LawFrontier frontier = law_frontier(form);
  if (frontier == LawFrontier::kCompute || frontier == LawFrontier::kParams) {
    return law_form_loss(form, theta, {budget});
  }
  if (frontier != LawFrontier::kComputeOptimal) return kNaN;
  const int n = index_of(form, "params"), d = index_of(form, "tokens"), c = index_of(form, "compute");
  std::vector<double> values(form.variables.size());
  const auto loss_at = [&](double ln_n) {
    const double size = std::exp(ln_n);
    values[static_cast<std::size_t>(n)] = size;
    values[static_cast<std::size_t>(d)] = budget / (6.0 * size);
    if (c >= 0) values[static_cast<std::size_t>(c)] = budget;
    const double loss = law_form_loss(form, theta, values);
    return std::isfinite(loss) ? loss : kInf;
  };
  const double lo = std::log(size_lo / kSizeMargin), hi = std::log(size_hi * kSizeMargin);
  const auto [ln_n, loss] = boost::math::tools::brent_find_minima(loss_at, lo, hi, 40);
  if (!std::isfinite(loss) || ln_n - lo < 1e-6 * (hi - lo) || hi - ln_n < 1e-6 * (hi - lo)) return kNaN;
  return loss;
}

std::vector<LawFormMultiplier> law_form_multipliers(const LawForm& form, const LawRows& rows,
                                                    const std::vector<LawFormGroupFit>& groups,
                                                    const std::string& baseline, std::vector<double> budgets,
                                                    double confidence) {
  const LawFrontier frontier = law_frontier(form);
  const auto base = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.group == baseline; });
  if (frontier == LawFrontier::kNone || base == groups.end() || groups.size() < 2) return {};
  std::map<std::string, GroupRange> ranges;
  const int n = index_of(form, "params");
  for (const LawRow& row : rows.rows) {
    GroupRange& r = ranges[row.group];
    const double b = budget_of(form, frontier, row.values);
    r.budget_lo = std::min(r.budget_lo, b);
    r.budget_hi = std::max(r.budget_hi, b);
    const double size = n >= 0 ? row.values[static_cast<std::size_t>(n)] : 1.0;
    r.size_lo = std::min(r.size_lo, size);
    r.size_hi = std::max(r.size_hi, size);
  }
  if (budgets.empty()) {
    double lo = 0.0, hi = kInf;
    for (const auto& [group, r] : ranges) {
      lo = std::max(lo, r.budget_lo);
      hi = std::min(hi, r.budget_hi);
    }
    budgets = decade_budgets(lo, hi);
  }
  std::vector<LawFormMultiplier> out;
  for (const LawFormGroupFit& g : groups) {
    if (g.group == baseline) continue;
    const double df = std::min(base->degrees_of_freedom, g.degrees_of_freedom);
    const double factor = df > 0.0 ? small_sample_expansion(df, confidence) : 1.0;
    for (const double budget : budgets) {
      LawFormMultiplier m;
      m.group = g.group;
      m.baseline = baseline;
      m.budget = budget;
      m.value = multiplier(form, base->parameters, g.parameters, ranges[baseline], ranges[g.group], budget);
      std::vector<double> draws;
      const std::size_t pairs = std::min(base->parameter_draws.size(), g.parameter_draws.size());
      for (std::size_t b = 0; b < pairs; ++b) {
        if (base->parameter_draws[b].empty() || g.parameter_draws[b].empty()) continue;
        const double value = multiplier(form, base->parameter_draws[b], g.parameter_draws[b], ranges[baseline],
                                        ranges[g.group], budget);
        if (!std::isnan(value)) draws.push_back(value);
      }
      m.draws = static_cast<int>(draws.size());
      m.interval = std::isfinite(m.value) && m.value > 0.0 ? log_scale_interval(draws, m.value, factor, confidence)
                                                           : Interval{kNaN, kNaN};
      out.push_back(m);
    }
  }
  return out;
}

}  // namespace gammalab
