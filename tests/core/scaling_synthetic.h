#pragma once
// Synthetic runs drawn from known scaling laws with multiplicative log-normal noise, for the scaling tests.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab::test {

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

}  // namespace gammalab::test
