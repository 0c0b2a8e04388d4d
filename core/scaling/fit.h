#pragma once
// Fitting the laws of law.h.
// Approach 3 (n, c, chinchilla): minimise the Huber log-space objective (objective.h) with Ceres
// L-BFGS from every point of a grid of starts and keep the lowest objective (Hoffmann et al. 2022).
// Parameter layouts (theta):
//   n, c:        [e, alpha, a]            L = exp(e) + exp(a)·X^-alpha, X = N or C
//   chinchilla:  [e, alpha, beta, a, b]   L = exp(e) + exp(a)/N^alpha + exp(b)/D^beta
//   shared c:    [e, alpha, a_0, a_1...]  one frontier per group with common E and alpha
//   isoflop:     [ln k, a]                N_opt = k·C^a (Approach 2, closed-form least squares)
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/law.h"
#include "core/scaling/objective.h"

namespace gammalab {

struct FitSettings {
  // The Huber loss's delta (in ln L). A law is fitted to each configuration's mean over its seeds
  // (replicates.h: configuration_means), and unless delta_given the delta is scaled to the noise, never below
  // huber_delta: quadratic for residuals of the runs' own noise, linear for outliers (Huber 1964; k = 1.345 keeps
  // 95% of least squares' efficiency under normal noise). The noise is the seeds' own scatter of a
  // configuration's mean (pure error) where configurations were run more than once, measured before any fit;
  // without seeds, the residuals' robust s.d. after a grid at huber_delta (scale_delta). A delta far below the
  // noise makes the fit an L1 regression, whose objective is piecewise linear and can be exactly flat along a
  // parameter, so that where L-BFGS stops depends on rounding. With delta_given, huber_delta is used as it is
  // (Epoch's Chinchilla refit: 1e-3). Bootstrap refits keep the full fit's delta.
  double huber_delta = 1e-3;
  bool delta_given = false;
  bool scale_delta = true;
  double huber_k = 1.345;
  // Start grid axes (Hoffmann et al. 2022): exponents, e = ln E, and log-coefficients a, b.
  std::vector<double> grid_exponent = {0.0, 0.5, 1.0, 1.5, 2.0};
  std::vector<double> grid_e = {-1.0, -0.5, 0.0, 0.5, 1.0};
  std::vector<double> grid_coef = {0.0, 5.0, 10.0, 15.0, 20.0, 25.0};
  int max_iterations = 1000;
  int threads = 2;
  int warm_starts = 4;  // distinct best optima kept to seed bootstrap refits
};

// The Cartesian grid of starts for a theta layout with `exponents` exponents and `coefs` log-coefficients.
std::vector<std::vector<double>> start_grid(const FitSettings& settings, int exponents, int coefs);

// Builds the objective design of a law from runs (law c: pass the frontier). Throws std::invalid_argument for
// isoflop or for non-positive N, D, C or L.
LseDesign law_design(LawKind kind, const std::vector<RunPoint>& runs);
// Shared-exponent frontiers: group_of[i] in [0, groups) picks the log-coefficient of run i.
LseDesign shared_frontier_design(const std::vector<RunPoint>& runs, const std::vector<int>& group_of, int groups);

// Minimises the design's objective from each start and keeps the best (ties: lowest start index).
// Fills theta, objective, convergence fields and best_optima; not parameters (see describe_fit).
LawFit minimise_from_starts(const LseDesign& design, const std::vector<std::vector<double>>& starts,
                            const FitSettings& settings, int threads);

// Names the parameters and derived quantities of fit.theta (E = e^e, A = e^a, ...).
void describe_fit(LawFit& fit);

// minimise_from_starts, then (settings.scale_delta) a refit from the best optima with delta scaled to the
// residuals' robust s.d. (1.4826 · their median absolute value), never below settings.huber_delta.
LawFit minimise_noise_scaled(const LseDesign& design, const std::vector<std::vector<double>>& starts,
                             const FitSettings& settings, int threads);

// The fit of a design at the delta the settings give (FitSettings): as given; 1.345 x `scatter` (the seeds' pure
// error of a point, when known); else scaled to the residuals (minimise_noise_scaled). Says which in
// delta_source.
LawFit minimise_at_noise(const LseDesign& design, const std::vector<std::vector<double>>& starts,
                         const FitSettings& settings, std::optional<double> scatter, int threads);

// Fits a law to the configurations' means of runs from the full start grid (law c: on their compute frontier),
// delta as minimise_at_noise.
LawFit fit_law(LawKind kind, const std::vector<RunPoint>& runs, const FitSettings& settings);
// Same, starting only from `starts` at settings.huber_delta as it is (bootstrap refits warm-started from a full
// fit's best optima, with its delta).
LawFit fit_law_from(LawKind kind, const std::vector<RunPoint>& runs, const FitSettings& settings,
                    const std::vector<std::vector<double>>& starts, int threads);

// Approach 2: for every budget (runs at the same compute, relative tolerance 1e-6) with at least three model
// sizes, fit L = p0 + p1·ln N + p2·(ln N)^2; its vertex is N_opt. Then ln N_opt = ln k + a·ln C by least
// squares. Needs two budgets with a convex parabola; otherwise returns a fit with NaN parameters.
LawFit fit_isoflop(const std::vector<RunPoint>& runs);

// Ceres logs line-search warnings through glog (e.g. "constant polynomial" when the Huber objective is locally
// linear); they are harmless for multi-start fits. Raises glog's process-wide threshold to ERROR; programs that
// print fit results (CLI, bench, tests) call it once, services may choose not to.
void quiet_solver_logging();

// Distinct model sizes (N, relative tolerance 1e-9) in runs.
int count_model_sizes(const std::vector<RunPoint>& runs);

}  // namespace gammalab
