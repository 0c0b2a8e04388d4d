#pragma once
// Synthetic runs drawn from known scaling laws with multiplicative log-normal noise, for the scaling tests.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab::test {

// Simulated studies per calibration row: GAMMALAB_CALIBRATION_DRAWS (`make calibrate` sets 1000), else 200. Unset
// or empty means the default; an empty value once ran one draw, whose coverage is 0 or 1.
inline int calibration_draws() {
  const char* text = std::getenv("GAMMALAB_CALIBRATION_DRAWS");
  return text != nullptr && *text != '\0' ? std::max(1, std::atoi(text)) : 200;
}

struct ChinchillaTruth {
  double E = 1.69, A = 406.4, alpha = 0.34, B = 410.7, beta = 0.28;  // Hoffmann et al. (2022)
  double loss(double n, double d) const { return E + A * std::pow(n, -alpha) + B * std::pow(d, -beta); }
};

inline std::vector<double> log_space(double lo, double hi, int count) {
  std::vector<double> out;
  for (int i = 0; i < count; ++i) {
    out.push_back(lo * std::pow(hi / lo, count == 1 ? 0.0 : static_cast<double>(i) / (count - 1)));
  }
  return out;
}

// sizes x token counts grid, loss·exp(sigma·z).
inline std::vector<RunPoint> chinchilla_runs(const ChinchillaTruth& t, int sizes, int token_counts, double sigma,
                                             std::uint64_t seed, const std::string& group = "baseline") {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<RunPoint> runs;
  for (double n : log_space(2e7, 2e9, sizes)) {
    for (double d : log_space(2e8, 2e11, token_counts)) {
      runs.push_back({n, d, 0.0, t.loss(n, d) * std::exp(sigma * z(rng)), group, ""});
    }
  }
  return runs;
}

// L(N) = E + A·N^-alpha, one run per size at a fixed token count.
inline std::vector<RunPoint> power_runs(double E, double A, double alpha, int sizes, double sigma, std::uint64_t seed,
                                        const std::string& group = "baseline") {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<RunPoint> runs;
  for (double n : log_space(1e7, 1e10, sizes)) {
    runs.push_back({n, 1e10, 0.0, (E + A * std::pow(n, -alpha)) * std::exp(sigma * z(rng)), group, ""});
  }
  return runs;
}

// A ladder of baseline and variant runs with seeds, tokens tied to parameters (D = 20·N, C = 6·N·D), where the
// variant's mean loss at C is the baseline's at multiplier·C. Run (size, seed) of either group adds the same
// seed effect (s.d. shared_sigma: data order and initial weights) and its own noise (s.d. own_sigma). The
// variant's N is 0.01% larger, as its scale vectors would make it.
// The shape of a run's own noise (s.d. own_sigma in every case): normal; heavy-tailed (Student t with 3 df,
// scaled); heteroscedastic (the variant's twice the baseline's, and growing with size); skewed (the baseline
// is `skew` worse in a quarter of its runs, bimodal: its mean moves by skew/4, which moves the true multiplier
// of means, PairedLadder::truth).
enum class SeedNoise { normal, heavy_tailed, heteroscedastic, skewed };

struct PairedLadder {
  std::vector<double> compute = {1e10, 1e11, 1e12, 1e13, 1e14};
  int seeds = 3;
  double multiplier = 1.22;
  // d ln m / d ln N: the true multiplier at a size is multiplier · (N / the smallest N)^multiplier_slope, the
  // trend the comparison's slope of ln m_local on ln N estimates (0: one multiplier at every size).
  double multiplier_slope = 0.0;
  double shared_sigma = 0.0, own_sigma = 0.01;
  double (*baseline_loss)(double compute) = nullptr;  // the baseline's mean loss at C
  SeedNoise noise = SeedNoise::normal;
  double skew = 0.10;
};

inline PairedLadder paired_design(double (*baseline_loss)(double), int seeds, double own_sigma,
                                  double shared_sigma = 0.0) {
  PairedLadder design;
  design.baseline_loss = baseline_loss;
  design.seeds = seeds;
  design.own_sigma = own_sigma;
  design.shared_sigma = shared_sigma;
  return design;
}

// One run's own noise of `design`'s shape; `size` counts the ladder's sizes from 0.
// `z` is the caller's standard normal, so that normal noise draws the same stream as it always has.
inline double own_noise(const PairedLadder& design, bool variant, int size, std::mt19937_64& rng,
                        std::normal_distribution<double>& z) {
  switch (design.noise) {
    case SeedNoise::normal: return design.own_sigma * z(rng);
    case SeedNoise::heavy_tailed: {
      std::student_t_distribution<double> t(3.0);
      return design.own_sigma * t(rng) / std::sqrt(3.0);  // t_3 has variance 3
    }
    case SeedNoise::heteroscedastic: return design.own_sigma * (variant ? 2.0 : 1.0) * (1.0 + 0.5 * size) * z(rng);
    case SeedNoise::skewed: {
      std::bernoulli_distribution worse(0.25);
      return design.own_sigma * z(rng) + (!variant && worse(rng) ? design.skew : 0.0);
    }
  }
  return 0.0;
}

inline std::vector<RunPoint> paired_ladder(const PairedLadder& design, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<RunPoint> runs;
  int size = 0;
  const double smallest = std::sqrt(design.compute.front() / 120.0);
  for (double c : design.compute) {
    const double n = std::sqrt(c / 120.0);
    const double multiplier = design.multiplier * std::pow(n / smallest, design.multiplier_slope);
    for (int s = 0; s < design.seeds; ++s) {
      const double shared = design.shared_sigma * z(rng);
      RunPoint base{n, 20 * n, c, design.baseline_loss(c) + shared + own_noise(design, false, size, rng, z), "baseline",
                    ""};
      base.seed = static_cast<std::uint64_t>(s);
      RunPoint variant{n * 1.0001, 20 * n, c,
                       design.baseline_loss(multiplier * c) + shared + own_noise(design, true, size, rng, z),
                       "unified", ""};
      variant.seed = static_cast<std::uint64_t>(s);
      runs.push_back(base);
      runs.push_back(variant);
    }
    ++size;
  }
  return runs;
}

// A WSD surface of cooldown branches (docs/branches.md): every size at the same budgets in tokens per parameter.
// `law(N, D, m)` is the mean loss of the baseline (m = 1) and of the variant (m = multiplier). The default is
// straight in ln C within a budget (so interpolation between sizes is exact and the estimand is the compute
// multiplier), worse away from 20 tokens per parameter; token_law() makes the variant need m times fewer
// tokens at every size (the token multiplier at fixed N). A run's noise has three parts: `pair_sigma`, shared
// by both arms' runs of one size and seed (data order, initial weights); `run_sigma`, the arm's own run, shared
// by every budget of it (its branches leave one stable phase); and `branch_sigma`, each branch's own decay.
struct BranchSurface {
  using Law = double (*)(double n, double d, double multiplier);
  std::vector<double> sizes = {1e6, 2e6, 4e6};
  std::vector<double> ratios = {5.0, 10.0, 20.0, 40.0};
  int seeds = 2;
  double multiplier = 1.3;
  double pair_sigma = 0.01, run_sigma = 0.006, branch_sigma = 0.001;
  Law law = compute_law;
  static double compute_law(double n, double d, double multiplier) {
    return 3.0 - 0.08 * std::log(multiplier * (6.0 * n * d) / 1e10) + 0.05 * std::abs(std::log(d / n / 20.0));
  }
  // Chinchilla's form, smooth and convex in ln D at a fixed size, with the variant's D worth m of the baseline's.
  static double token_law(double n, double d, double multiplier) {
    return 1.5 + 60.0 * std::pow(n, -0.3) + 64.0 * std::pow(multiplier * d, -0.3);
  }
};

inline std::vector<RunPoint> branch_surface(const BranchSurface& design, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0.0, 1.0);
  std::vector<RunPoint> runs;
  for (const double n : design.sizes) {
    for (int s = 0; s < design.seeds; ++s) {
      const double pair = design.pair_sigma * z(rng);
      const double base_run = design.run_sigma * z(rng), variant_run = design.run_sigma * z(rng);
      for (const double ratio : design.ratios) {
        const double d = ratio * n, c = 6.0 * n * d;
        RunPoint base{n, d, c, design.law(n, d, 1.0) + pair + base_run + design.branch_sigma * z(rng), "baseline", ""};
        base.seed = static_cast<std::uint64_t>(s);
        RunPoint variant{n * 1.0001, d, c,
                         design.law(n, d, design.multiplier) + pair + variant_run + design.branch_sigma * z(rng),
                         "unified", ""};
        variant.seed = static_cast<std::uint64_t>(s);
        runs.push_back(base);
        runs.push_back(variant);
      }
    }
  }
  return runs;
}

}  // namespace gammalab::test
