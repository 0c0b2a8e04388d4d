// The Huber log-sum-exp objective against direct numerical computation: value, LSE form and gradient.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/objective.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

TEST(ScalingObjective, HuberPiecesMatchDefinition) {
  const double delta = 1e-3;
  EXPECT_DOUBLE_EQ(huber(5e-4, delta), 0.5 * 5e-4 * 5e-4);
  EXPECT_DOUBLE_EQ(huber(-3e-3, delta), delta * (3e-3 - 0.5 * delta));
  EXPECT_DOUBLE_EQ(huber_derivative(5e-4, delta), 5e-4);
  EXPECT_DOUBLE_EQ(huber_derivative(-3e-3, delta), -delta);
  // Continuous at the kink.
  EXPECT_NEAR(huber(delta * (1 + 1e-12), delta), huber(delta * (1 - 1e-12), delta), 1e-15);
}

TEST(ScalingObjective, LogSumExpMatchesDirectAndSurvivesLargeExponents) {
  const double u[3] = {0.3, -1.2, 2.5};
  EXPECT_NEAR(log_sum_exp(u, 3), std::log(std::exp(0.3) + std::exp(-1.2) + std::exp(2.5)), 1e-14);
  const double big[2] = {800.0, 800.0};  // exp(800) overflows a double
  EXPECT_NEAR(log_sum_exp(big, 2), 800.0 + std::log(2.0), 1e-12);
}

// f(theta) computed the long way: L_hat = E + A/N^alpha + B/D^beta, residual ln L_hat - ln L.
double direct_chinchilla(const std::vector<RunPoint>& runs, const double* t, double delta) {
  double total = 0.0;
  for (const auto& r : runs) {
    const double pred = std::exp(t[0]) + std::exp(t[3]) / std::pow(r.params, t[1]) + std::exp(t[4]) / std::pow(r.tokens, t[2]);
    total += huber(std::log(pred) - std::log(r.loss), delta);
  }
  return total;
}

TEST(ScalingObjective, ChinchillaValueAndGradientMatchFiniteDifferences) {
  const auto runs = test::chinchilla_runs({}, 4, 5, 0.02, 7);
  const LseDesign design = law_design(LawKind::chinchilla, runs);
  const double delta = 1e-3;
  HuberLseObjective objective(design, delta);
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> jitter(-0.3, 0.3);
  for (int trial = 0; trial < 5; ++trial) {
    std::vector<double> t = {std::log(1.7) + jitter(rng), 0.34 + jitter(rng), 0.28 + jitter(rng),
                             std::log(406.4) + jitter(rng), std::log(410.7) + jitter(rng)};
    double cost = 0.0;
    std::vector<double> grad(5);
    ASSERT_TRUE(objective.Evaluate(t.data(), &cost, grad.data()));
    EXPECT_NEAR(cost, direct_chinchilla(runs, t.data(), delta), 1e-12 * (1.0 + cost));
    for (int i = 0; i < 5; ++i) {
      const double h = 1e-6;
      auto tp = t, tm = t;
      tp[static_cast<std::size_t>(i)] += h;
      tm[static_cast<std::size_t>(i)] -= h;
      const double fd = (direct_chinchilla(runs, tp.data(), delta) - direct_chinchilla(runs, tm.data(), delta)) / (2 * h);
      EXPECT_NEAR(grad[static_cast<std::size_t>(i)], fd, 1e-6 * (1.0 + std::abs(fd))) << "parameter " << i;
    }
  }
}

TEST(ScalingObjective, SharedFrontierGradientMatchesFiniteDifferences) {
  std::vector<RunPoint> runs;
  std::vector<int> group_of;
  for (int i = 0; i < 12; ++i) {
    const double c = 1e17 * std::pow(10.0, i / 3.0);
    runs.push_back({1, 1, c, 2.0 + 50.0 * std::pow(c, -0.1) * (1 + 0.01 * (i % 3)), "", ""});
    group_of.push_back(i % 2);
  }
  const LseDesign design = shared_frontier_design(runs, group_of, 2);
  HuberLseObjective objective(design, 1e-2);
  std::vector<double> t = {0.6, 0.11, 3.8, 4.0};
  double cost = 0.0;
  std::vector<double> grad(4);
  ASSERT_TRUE(objective.Evaluate(t.data(), &cost, grad.data()));
  for (int i = 0; i < 4; ++i) {
    const double h = 1e-6;
    auto tp = t, tm = t;
    tp[static_cast<std::size_t>(i)] += h;
    tm[static_cast<std::size_t>(i)] -= h;
    double fp = 0.0, fm = 0.0;
    objective.Evaluate(tp.data(), &fp, nullptr);
    objective.Evaluate(tm.data(), &fm, nullptr);
    EXPECT_NEAR(grad[static_cast<std::size_t>(i)], (fp - fm) / (2 * h), 1e-6 * (1.0 + std::abs(grad[static_cast<std::size_t>(i)])));
  }
  // Prediction is the LSE form: ln(E + A_g·C^-alpha).
  EXPECT_NEAR(objective.predict_log(t.data(), 3),
              std::log(std::exp(0.6) + std::exp(4.0) * std::pow(runs[3].compute, -0.11)), 1e-12);
}

}  // namespace
}  // namespace gammalab
