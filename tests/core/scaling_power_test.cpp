// Power before compute: core/scaling/power.h's simulation against an independent simulation of the same
// design, written here from the definitions (paired seeds, interpolation in ln C, paired bootstrap with the
// small-sample widening) without the library's comparison code.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/scaling/noise_estimate.h"
#include "core/scaling/power.h"
#include "core/scaling/quantiles.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

// ln C at which the piecewise-linear curve (x ascending) reaches y: the crossing nearest x0 among bracketing
// segments; else the end segment on y's side, and inside = false.
double reach(const std::vector<double>& x, const std::vector<double>& y, double target, double x0, bool* inside) {
  double best = NAN;
  for (std::size_t j = 0; j + 1 < x.size(); ++j) {
    if (target < std::min(y[j], y[j + 1]) || target > std::max(y[j], y[j + 1]) || y[j] == y[j + 1]) continue;
    const double at = x[j] + (target - y[j]) * (x[j + 1] - x[j]) / (y[j + 1] - y[j]);
    if (std::isnan(best) || std::abs(at - x0) < std::abs(best - x0)) best = at;
  }
  *inside = !std::isnan(best);
  if (*inside) return best;
  const std::size_t j = target < y.back() ? x.size() - 2 : 0;
  return x[j] + (target - y[j]) * (x[j + 1] - x[j]) / (y[j + 1] - y[j]);
}

// Mean of ln m_local over every size, inside the baseline's range or not: the support is fixed before the
// outcome. (The library weights sizes by seeds x slope^2, equal here up to noise: the truth is straight in ln C;
// and its baseline curve is a monotone cubic, which through noisy points of a straight line stays near the
// chords used here.)
double pooled(const std::vector<double>& x, const std::vector<double>& base, const std::vector<double>& variant) {
  double sum = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    bool inside = false;
    sum += reach(x, base, variant[k], x[k], &inside) - x[k];
  }
  return sum / x.size();
}

double independent_power(const PowerDesign& d, int studies, int resamples, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> z(0, 1);
  const std::size_t sizes = d.compute.size();
  const auto n = static_cast<std::size_t>(d.seeds);
  std::vector<double> x;
  for (double c : d.compute) x.push_back(std::log(c));
  const double expand = student_t_quantile(0.975, static_cast<int>(sizes * (n - 1))) / normal_quantile(0.975);
  int excluded = 0;
  for (int study = 0; study < studies; ++study) {
    std::vector<std::vector<double>> b(sizes, std::vector<double>(n)), v = b;
    for (std::size_t k = 0; k < sizes; ++k) {
      const double mean = 3.0 - d.loss_slope * (x[k] - x[0]);
      for (std::size_t s = 0; s < n; ++s) {
        const double shared = d.noise * std::sqrt(d.seed_correlation) * z(rng);
        b[k][s] = mean + shared + d.noise * std::sqrt(1 - d.seed_correlation) * z(rng);
        v[k][s] = mean - d.loss_slope * std::log(d.multiplier) + shared +
                  d.noise * std::sqrt(1 - d.seed_correlation) * z(rng);
      }
    }
    auto means = [&](const std::vector<std::vector<double>>& runs) {
      std::vector<double> out;
      for (const auto& r : runs) out.push_back(std::accumulate(r.begin(), r.end(), 0.0) / r.size());
      return out;
    };
    const std::vector<double> mb = means(b), mv = means(v);
    const double estimate = pooled(x, mb, mv);
    std::vector<double> boot;
    const double inflate = std::sqrt(double(n) / (n - 1));
    std::uniform_int_distribution<std::size_t> pick(0, n - 1);
    for (int r = 0; r < resamples; ++r) {
      std::vector<double> rb(sizes, 0.0), rv(sizes, 0.0);
      for (std::size_t k = 0; k < sizes; ++k) {
        for (std::size_t s = 0; s < n; ++s) {
          const std::size_t i = pick(rng);  // one seed for both groups
          rb[k] += (mb[k] + inflate * (b[k][i] - mb[k])) / n;
          rv[k] += (mv[k] + inflate * (v[k][i] - mv[k])) / n;
        }
      }
      boot.push_back(pooled(x, rb, rv));
    }
    std::sort(boot.begin(), boot.end());
    const double lo = boot[static_cast<std::size_t>(0.025 * (boot.size() - 1))];
    excluded += estimate - expand * (estimate - lo) > 0.0 ? 1 : 0;
  }
  return double(excluded) / studies;
}

// Five sizes a decade of compute apart, noise 0.02 in loss.
PowerDesign five_decades(int seeds, int studies, int resamples) {
  PowerDesign design;
  design.compute = {1e10, 1e11, 1e12, 1e13, 1e14};
  design.seeds = seeds;
  design.noise = 0.02;
  design.studies = studies;
  design.resamples = resamples;
  return design;
}

TEST(ScalingPower, SimulatedPowerAgreesWithAnIndependentSimulation) {
  PowerDesign design = five_decades(3, 300, 200);
  design.seed_correlation = 0.3;
  const PowerEstimate power = simulate_power(design);
  const double independent = independent_power(design, 300, 200, 99);
  std::printf("power of 5 sizes x 3 paired seeds, noise 0.02, 1.22x: plan %.1f%%, independent %.1f%%; median "
              "interval hi/lo %.2f over %d sizes inside\n",
              100 * power.power, 100 * independent, power.median_ratio, power.sizes_inside);
  RecordProperty("power_plan_percent", static_cast<int>(std::lround(100 * power.power)));
  RecordProperty("power_independent_percent", static_cast<int>(std::lround(100 * independent)));
  EXPECT_NEAR(power.power, independent, 0.10);
  EXPECT_GT(power.power, 0.15) << "a design whose power is neither 0 nor 1 tests the agreement";
  EXPECT_LT(power.power, 0.85);
  EXPECT_EQ(power.sizes_inside, 4);
}

TEST(ScalingPower, MoreSeedsMorePowerAndOneSeedHasNoInterval) {
  PowerDesign design = five_decades(1, 100, 100);
  EXPECT_EQ(simulate_power(design).power, 0.0) << "one seed: no seed noise to resample, no interval";
  design.seeds = 2;
  const double two = simulate_power(design).power;
  design.seeds = 6;
  const double six = simulate_power(design).power;
  EXPECT_LT(two, six);
  design.seeds = 2;
  const auto needed = seeds_for_power(design, 0.8, 32);
  ASSERT_TRUE(needed);
  design.seeds = *needed;
  EXPECT_GE(simulate_power(design).power, 0.8);
  design.seeds = *needed - 1;
  EXPECT_LT(simulate_power(design).power, 0.8);
}

double straight_loss(double c) { return 3.0 - 0.08 * std::log(c / 1e10); }

// A previous sweep with known noise (s.d. 0.01, half its variance shared by the pair) and slope (0.08): what
// plan --noise-from reads back.
TEST(ScalingPower, MeasuresTheNoiseOfAPreviousSweep) {
  const auto runs = test::paired_ladder(test::paired_design(straight_loss, 40, 0.01 * std::sqrt(0.5),
                                                            0.01 * std::sqrt(0.5)), 21);
  const auto noise = measure_noise(runs, "baseline");
  ASSERT_TRUE(noise);
  EXPECT_NEAR(noise->noise, 0.01, 0.001);
  EXPECT_NEAR(noise->seed_correlation, 0.5, 0.1);
  EXPECT_NEAR(noise->loss_slope, 0.08, 0.002);
  EXPECT_EQ(noise->pairs, 200);
  EXPECT_EQ(noise->degrees_of_freedom, 2 * 5 * 39);
  std::vector<RunPoint> one_seed;
  for (const auto& r : runs) {
    if (r.seed == 0u) one_seed.push_back(r);
  }
  EXPECT_FALSE(measure_noise(one_seed, "baseline")) << "one run per configuration: no noise to measure";
}

// Seed noise with two modes (a quarter of the baseline's runs land 0.05 worse, on 0.005 of normal noise): the
// measured shape keeps them (skewed to the right, s.d. 1), and plan simulates from that shape.
TEST(ScalingPower, TheMeasuredShapeOfSeedNoiseKeepsItsSkewAndModes) {
  test::PairedLadder design = test::paired_design(straight_loss, 40, 0.005);
  design.noise = test::SeedNoise::skewed;
  design.skew = 0.05;
  const auto noise = measure_noise(test::paired_ladder(design, 5), "baseline");
  ASSERT_TRUE(noise);
  const std::vector<double>& shape = noise->shape;
  ASSERT_EQ(shape.size(), 2u * 5u * 40u);
  EXPECT_TRUE(std::is_sorted(shape.begin(), shape.end()));
  double mean = 0, var = 0, third = 0;
  for (double z : shape) mean += z / shape.size();
  for (double z : shape) {
    var += (z - mean) * (z - mean) / shape.size();
    third += std::pow(z - mean, 3) / shape.size();
  }
  EXPECT_NEAR(mean, 0.0, 1e-9);
  EXPECT_NEAR(var, 1.0, 0.05);
  EXPECT_GT(third / std::pow(var, 1.5), 1.0) << "a normal's skewness is 0";
  PowerDesign planned = five_decades(3, 200, 100);
  planned.noise = noise->noise;
  planned.noise_shape = shape;
  const PowerEstimate shaped = simulate_power(planned);
  EXPECT_GT(shaped.power, 0.0);
  EXPECT_LE(shaped.power, 1.0);
  planned.noise_shape = {1.0, std::nan("")};
  EXPECT_THROW(simulate_power(planned), std::invalid_argument);
}

// Heavy tails stated rather than measured: Student's t at the same s.d.; a variance that is not finite refused.
TEST(ScalingPower, HeavyTailedNoiseIsStatedByItsDegreesOfFreedom) {
  PowerDesign design = five_decades(3, 200, 100);
  design.noise_df = 3.0;
  const PowerEstimate t3 = simulate_power(design);
  EXPECT_GT(t3.power, 0.0);
  design.noise_df = 2.0;
  EXPECT_THROW(simulate_power(design), std::invalid_argument);
}

// The tune stage's pick is off its optimum by its own noise, shared by every seed of an arm and size: no
// resampling of seeds sees it, so it costs power and, worse, coverage; plan says both.
TEST(ScalingPower, LrPickNoiseCostsPowerAndCoverage) {
  PowerDesign exact = five_decades(3, 300, 100);
  PowerDesign picked = exact;
  picked.pick_noise = 1.0;     // log2 units: a x2 grid step
  picked.lr_curvature = 0.03;  // loss per squared log2 step
  const PowerEstimate e = simulate_power(exact);
  const PowerEstimate p = simulate_power(picked);
  EXPECT_GT(e.coverage, 0.88) << "seed noise only: near the nominal 95%";
  EXPECT_LT(p.coverage, e.coverage - 0.1) << "exact pick " << e.coverage << ", noisy pick " << p.coverage;
  EXPECT_LT(p.power, e.power) << "exact pick " << e.power << ", noisy pick " << p.power;
  picked.pick_noise = -1.0;
  EXPECT_THROW(simulate_power(picked), std::invalid_argument);
}

}  // namespace
}  // namespace gammalab
