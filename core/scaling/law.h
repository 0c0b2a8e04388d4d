#pragma once
// Scaling-law data types: the runs a fit consumes, the law families, and a fitted law's parameters.
// Every law is fitted in log space (Hoffmann et al. 2022, Approach 3): ln L is modelled as a log-sum-exp of
// log-linear terms, so the parameters the optimiser sees are a = ln A, b = ln B, e = ln E, alpha, beta.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gammalab {

// One finished training run.
struct RunPoint {
  double params = 0.0;   // N, model parameters
  double tokens = 0.0;   // D, training tokens
  double compute = 0.0;  // C in FLOPs; 0 means "use 6·N·D"
  double loss = 0.0;     // final loss L
  std::string group;     // e.g. "baseline", "unified"
  std::string label;     // optional run id, only echoed in reports
  // The run's seed: runs of different groups at the same size, tokens and seed share the data order and the
  // initial weights, so they are a pair (core/scaling/pairing.h). Unknown (no pairs) when absent.
  std::optional<std::uint64_t> seed = std::nullopt;
};

// C of a run: the given compute, else the 6·N·D approximation (Kaplan et al. 2020).
double run_compute(const RunPoint& run);

enum class LawKind {
  n,           // L(N) = E + A·N^-alpha on final losses
  c,           // L(C) = E + A·C^-alpha on the compute frontier
  chinchilla,  // L(N, D) = E + A/N^alpha + B/D^beta
  isoflop,     // Approach 2: per-budget parabola in ln N, then N_opt = k·C^a
};
std::string_view law_name(LawKind kind);
std::optional<LawKind> parse_law(std::string_view name);

struct NamedValue {
  std::string name;
  double value = 0.0;
};

// A law fitted by multi-start L-BFGS (or, for isoflop, by least squares).
struct LawFit {
  LawKind kind = LawKind::n;
  std::vector<double> theta;          // optimiser parameters, layout fixed per law (see fit.h)
  std::vector<NamedValue> parameters; // E, A, alpha (, B, beta) or, for isoflop, a, k
  std::vector<NamedValue> derived;    // quantities computed from the parameters (exponents of the optimum, ...)
  bool converged = false;             // Ceres reported CONVERGENCE for the kept start
  std::string termination;            // Ceres termination message of the kept start
  double objective = 0.0;             // Huber objective at the kept start (isoflop: residual sum of squares)
  double huber_delta = 0.0;           // the Huber delta of that objective
  std::string delta_source;           // where the delta came from (kDeltaGiven, kDeltaSeeds, kDeltaResiduals)
  int starts = 0;                     // starts tried
  int starts_converged = 0;           // of which Ceres reported CONVERGENCE
  int points = 0;                     // points the objective saw (frontier points for law c)
  std::vector<std::vector<double>> best_optima;  // best distinct optima: warm starts for bootstrap refits
};

inline constexpr const char* kDeltaGiven = "given";          // --huber-delta, or a law's settings
inline constexpr const char* kDeltaSeeds = "seeds' scatter"; // 1.345 x the pure error of a configuration's mean
inline constexpr const char* kDeltaResiduals = "residuals";  // no seeds: 1.345 x the residuals' robust s.d.

// Value of a named parameter or derived quantity; NaN when absent.
double fit_value(const LawFit& fit, std::string_view name);

// Predicted loss of a run under a fitted law (n: from N, c: from C, chinchilla: from N and D).
// NaN for isoflop, which does not predict losses.
double predict_loss(const LawFit& fit, const RunPoint& run);

}  // namespace gammalab
