#include "core/scaling/fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <glog/logging.h>

#include "core/scaling/lbfgs.h"
#include "core/scaling/frontier.h"
#include "core/scaling/replicates.h"

namespace gammalab {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double checked_log(double value, const char* what) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw std::invalid_argument(std::string("scaling fit: ") + what + " must be positive and finite, got " +
                                std::to_string(value));
  }
  return std::log(value);
}

}  // namespace

std::vector<std::vector<double>> start_grid(const FitSettings& s, int exponents, int coefs) {
  // Layout order: e, exponents..., coefficients... (matches law_design).
  std::vector<const std::vector<double>*> axes{&s.grid_e};
  for (int i = 0; i < exponents; ++i) axes.push_back(&s.grid_exponent);
  for (int i = 0; i < coefs; ++i) axes.push_back(&s.grid_coef);
  std::vector<std::vector<double>> grid{{}};
  for (const auto* axis : axes) {
    std::vector<std::vector<double>> next;
    next.reserve(grid.size() * axis->size());
    for (const auto& prefix : grid) {
      for (double v : *axis) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    grid = std::move(next);
  }
  return grid;
}

LseDesign law_design(LawKind kind, const std::vector<RunPoint>& runs) {
  LseDesign d;
  d.e_index = 0;
  for (const auto& run : runs) d.y.push_back(checked_log(run.loss, "loss"));
  switch (kind) {
    case LawKind::n:
    case LawKind::c:
      d.num_parameters = 3;
      d.exponent_index = {1};
      for (const auto& run : runs) {
        d.x.push_back(kind == LawKind::n ? checked_log(run.params, "params") : checked_log(run_compute(run), "compute"));
        d.coef.push_back(2);
      }
      break;
    case LawKind::chinchilla:
      d.num_parameters = 5;
      d.exponent_index = {1, 2};
      for (const auto& run : runs) {
        d.x.push_back(checked_log(run.params, "params"));
        d.x.push_back(checked_log(run.tokens, "tokens"));
        d.coef.push_back(3);
        d.coef.push_back(4);
      }
      break;
    case LawKind::isoflop:
      throw std::invalid_argument("scaling fit: the isoflop law has no Huber objective");
  }
  return d;
}

LseDesign shared_frontier_design(const std::vector<RunPoint>& runs, const std::vector<int>& group_of, int groups) {
  LseDesign d;
  d.num_parameters = 2 + groups;
  d.e_index = 0;
  d.exponent_index = {1};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    d.y.push_back(checked_log(runs[i].loss, "loss"));
    d.x.push_back(checked_log(run_compute(runs[i]), "compute"));
    d.coef.push_back(2 + group_of[i]);
  }
  return d;
}

LawFit minimise_from_starts(const LseDesign& design, const std::vector<std::vector<double>>& starts,
                            const FitSettings& settings, int threads) {
  const HuberLseObjective objective(design, settings.huber_delta);
  const MultiStart solved = minimise_from_each(objective, starts, settings.max_iterations, threads, settings.warm_starts);
  LawFit fit;
  fit.starts = static_cast<int>(starts.size());
  fit.points = design.points();
  fit.starts_converged = solved.converged;
  const LbfgsResult* best = solved.best();
  if (best == nullptr || !std::isfinite(best->cost)) {
    fit.theta.assign(static_cast<std::size_t>(design.num_parameters), kNaN);
    fit.objective = kNaN;
    fit.termination = "FAILURE";
    return fit;
  }
  fit.huber_delta = settings.huber_delta;
  fit.theta = best->x;
  fit.objective = best->cost;
  fit.converged = best->converged;
  fit.termination = best->message;
  fit.best_optima = solved.best_optima;
  return fit;
}

LawFit minimise_noise_scaled(const LseDesign& design, const std::vector<std::vector<double>>& starts,
                             const FitSettings& settings, int threads) {
  LawFit grid = minimise_from_starts(design, starts, settings, threads);
  if (!settings.scale_delta || grid.theta.empty() || !std::isfinite(grid.objective)) return grid;
  const HuberLseObjective objective(design, settings.huber_delta);
  std::vector<double> residuals;
  for (int i = 0; i < design.points(); ++i) {
    residuals.push_back(std::abs(objective.predict_log(grid.theta.data(), i) - design.y[static_cast<std::size_t>(i)]));
  }
  std::nth_element(residuals.begin(), residuals.begin() + static_cast<std::ptrdiff_t>(residuals.size() / 2),
                   residuals.end());
  const double scale = 1.4826 * residuals[residuals.size() / 2];  // the normal's s.d. from its median |r|
  FitSettings scaled = settings;
  scaled.huber_delta = std::max(settings.huber_delta, settings.huber_k * scale);
  if (!(scaled.huber_delta > settings.huber_delta)) return grid;
  LawFit fit = minimise_from_starts(design, grid.best_optima, scaled, threads);
  fit.starts = grid.starts;  // what was tried: the grid, then its best optima again
  fit.starts_converged = grid.starts_converged;
  return fit;
}

void describe_fit(LawFit& fit) {
  const auto& t = fit.theta;
  fit.parameters.clear();
  fit.derived.clear();
  switch (fit.kind) {
    case LawKind::n:
    case LawKind::c:
      fit.parameters = {{"E", std::exp(t[0])}, {"A", std::exp(t[2])}, {"alpha", t[1]}};
      break;
    case LawKind::chinchilla: {
      const double E = std::exp(t[0]), A = std::exp(t[3]), B = std::exp(t[4]), alpha = t[1], beta = t[2];
      fit.parameters = {{"E", E}, {"A", A}, {"alpha", alpha}, {"B", B}, {"beta", beta}};
      // Compute-optimal allocation under C = 6·N·D: N_opt = G·(C/6)^a, D_opt = (C/6)^b / G, and the
      // frontier L*(C) = E + A_C·C^-alpha_C (see compute_multiplier.h).
      const double a = beta / (alpha + beta), b = alpha / (alpha + beta), alpha_c = alpha * beta / (alpha + beta);
      const double G = std::pow(alpha * A / (beta * B), 1.0 / (alpha + beta));
      const double A_c6 = A * std::pow(G, -alpha) + B * std::pow(G, beta);
      const bool ok = alpha > 0.0 && beta > 0.0;
      fit.derived = {{"a_Nopt", ok ? a : kNaN},
                     {"b_Dopt", ok ? b : kNaN},
                     {"G", ok ? G : kNaN},
                     {"alpha_C", ok ? alpha_c : kNaN},
                     {"A_C", ok ? A_c6 * std::pow(6.0, alpha_c) : kNaN}};
      break;
    }
    case LawKind::isoflop:
      fit.parameters = {{"a", t[1]}, {"k", std::exp(t[0])}};
      fit.derived = {{"b_Dopt", 1.0 - t[1]}};
      break;
  }
}

LawFit minimise_at_noise(const LseDesign& design, const std::vector<std::vector<double>>& starts,
                         const FitSettings& settings, std::optional<double> scatter, int threads) {
  if (settings.delta_given) {
    LawFit fit = minimise_from_starts(design, starts, settings, threads);
    fit.delta_source = kDeltaGiven;
    return fit;
  }
  if (scatter && *scatter > 0.0 && std::isfinite(*scatter)) {
    FitSettings at_noise = settings;
    at_noise.huber_delta = std::max(settings.huber_delta, settings.huber_k * *scatter);
    LawFit fit = minimise_from_starts(design, starts, at_noise, threads);
    fit.delta_source = kDeltaSeeds;
    return fit;
  }
  LawFit fit = minimise_noise_scaled(design, starts, settings, threads);
  fit.delta_source = settings.scale_delta ? kDeltaResiduals : kDeltaGiven;
  return fit;
}

namespace {

// The points a law's objective sees: the configurations' means, on their compute frontier for law c.
std::vector<RunPoint> law_points(LawKind kind, const std::vector<RunPoint>& runs) {
  const std::vector<RunPoint> means = configuration_means(runs);
  return kind == LawKind::c ? compute_frontier(means) : means;
}

}  // namespace

LawFit fit_law_from(LawKind kind, const std::vector<RunPoint>& runs, const FitSettings& settings,
                    const std::vector<std::vector<double>>& starts, int threads) {
  if (kind == LawKind::isoflop) return fit_isoflop(runs);
  const LseDesign design = law_design(kind, law_points(kind, runs));
  LawFit fit = minimise_from_starts(design, starts, settings, threads);
  fit.kind = kind;
  describe_fit(fit);
  return fit;
}

LawFit fit_law(LawKind kind, const std::vector<RunPoint>& runs, const FitSettings& settings) {
  if (kind == LawKind::isoflop) return fit_isoflop(runs);
  const int exponents = kind == LawKind::chinchilla ? 2 : 1;
  const LseDesign design = law_design(kind, law_points(kind, runs));
  LawFit fit = minimise_at_noise(design, start_grid(settings, exponents, exponents), settings,
                                 mean_log_scatter(runs), settings.threads);
  fit.kind = kind;
  describe_fit(fit);
  return fit;
}

void quiet_solver_logging() { FLAGS_minloglevel = std::max(FLAGS_minloglevel, static_cast<int>(google::GLOG_ERROR)); }

int count_model_sizes(const std::vector<RunPoint>& runs) {
  std::vector<double> sizes;
  for (const auto& r : runs) sizes.push_back(r.params);
  std::sort(sizes.begin(), sizes.end());
  int count = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (i == 0 || sizes[i] > sizes[i - 1] * (1.0 + 1e-9)) ++count;
  }
  return count;
}

LawFit fit_isoflop(const std::vector<RunPoint>& runs) {
  LawFit fit;
  fit.kind = LawKind::isoflop;
  fit.theta = {kNaN, kNaN};
  fit.termination = "FAILURE";
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return run_compute(runs[a]) < run_compute(runs[b]); });
  std::vector<double> log_c, log_n;  // one (ln C, ln N_opt) per usable budget
  double rss = 0.0;
  for (std::size_t start = 0; start < order.size();) {
    const double c0 = run_compute(runs[order[start]]);
    std::size_t end = start;
    while (end < order.size() && run_compute(runs[order[end]]) <= c0 * (1.0 + 1e-6)) ++end;
    std::vector<RunPoint> budget;
    for (std::size_t i = start; i < end; ++i) budget.push_back(runs[order[i]]);
    start = end;
    if (count_model_sizes(budget) < 3) continue;
    // Least-squares parabola in centred ln N (centring keeps the 3x3 normal equations well conditioned).
    double mean = 0.0;
    for (const auto& r : budget) mean += checked_log(r.params, "params");
    mean /= static_cast<double>(budget.size());
    double s[5] = {0, 0, 0, 0, 0}, t[3] = {0, 0, 0};
    for (const auto& r : budget) {
      const double x = std::log(r.params) - mean, y = r.loss;
      double xp = 1.0;
      for (int k = 0; k < 5; ++k, xp *= x) s[k] += xp;
      t[0] += y;
      t[1] += x * y;
      t[2] += x * x * y;
    }
    const double m[3][3] = {{s[0], s[1], s[2]}, {s[1], s[2], s[3]}, {s[2], s[3], s[4]}};
    auto det3 = [](const double a[3][3]) {
      return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
             a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    };
    const double det = det3(m);
    if (!(std::abs(det) > 0.0)) continue;
    double p[3];
    for (int col = 0; col < 3; ++col) {
      double mc[3][3];
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) mc[i][j] = j == col ? t[i] : m[i][j];
      p[col] = det3(mc) / det;
    }
    if (!(p[2] > 0.0)) continue;  // concave or flat: no interior minimum in this budget
    for (const auto& r : budget) {
      const double x = std::log(r.params) - mean;
      const double e = r.loss - (p[0] + p[1] * x + p[2] * x * x);
      rss += e * e;
    }
    log_c.push_back(std::log(c0));
    log_n.push_back(mean - p[1] / (2.0 * p[2]));
  }
  fit.points = static_cast<int>(log_c.size());
  if (log_c.size() >= 2) {
    const double n = static_cast<double>(log_c.size());
    const double mc = std::accumulate(log_c.begin(), log_c.end(), 0.0) / n;
    const double mn = std::accumulate(log_n.begin(), log_n.end(), 0.0) / n;
    double sxy = 0.0, sxx = 0.0;
    for (std::size_t i = 0; i < log_c.size(); ++i) {
      sxy += (log_c[i] - mc) * (log_n[i] - mn);
      sxx += (log_c[i] - mc) * (log_c[i] - mc);
    }
    if (sxx > 0.0) {
      const double a = sxy / sxx;
      fit.theta = {mn - a * mc, a};
      fit.converged = true;
      fit.termination = "CLOSED_FORM";
      fit.objective = rss;
    }
  }
  describe_fit(fit);
  fit.derived.push_back({"budgets", static_cast<double>(fit.points)});
  return fit;
}

}  // namespace gammalab
