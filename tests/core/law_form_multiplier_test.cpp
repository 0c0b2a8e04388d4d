// Compute multipliers of laws written as files (core/scaling/law_form_multiplier.h): exact on noiseless runs
// whose variant is the baseline at a known scale of compute (the compute-optimal frontier of Chinchilla's form,
// a law in compute, a law in size), and calibrated through the real fit path: the interval covers a planted
// multiplier 90–98% of the time and excludes 1× in at most 7% of studies when the truth is 1×.
#include "core/scaling/law_form_multiplier.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/scaling/compute_multiplier.h"
#include "core/scaling/fit.h"
#include "core/scaling/law_form_fit.h"
#include "tests/core/law_form_synthetic.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {


// Chinchilla's form with a small grid of starts, so that a test fits it in a second.
constexpr const char* kChinchilla = R"(law: chinchilla
variables: [params, tokens]
loss: E + A / params^alpha + B / tokens^beta
parameters:
  E: {bounds: [0, .inf], scale: log, starts: [1, 2]}
  A: {bounds: [0, .inf], scale: log, starts: [exp(5), exp(10)]}
  B: {bounds: [0, .inf], scale: log, starts: [exp(5), exp(10)]}
  alpha: {bounds: [-.inf, .inf], starts: [0.3, 0.5]}
  beta: {bounds: [-.inf, .inf], starts: [0.3, 0.5]}
)";

constexpr const char* kCompute = R"(law: c
variables: [compute]
loss: E + A / compute^alpha
parameters:
  E: {bounds: [0, .inf], scale: log, starts: [1, 2]}
  A: {bounds: [0, .inf], scale: log, starts: [exp(3), exp(8), exp(12)]}
  alpha: {bounds: [0, 2], starts: [0.1, 0.3]}
)";

constexpr const char* kParams = test::kQuickPowerLaw;

// Rows of two groups: the baseline's loss at each point, and the variant's, which is the baseline's at values
// scaled by `scale`; `seeds` seeds each, with noise in ln L: `pair_sigma` shared by the two groups' runs of one
// seed (their data order and initial weights), `sigma` a run's own.
LawRows two_groups(const LawForm& form, const std::map<std::string, double>& truth,
                   const std::vector<std::vector<double>>& points, const std::vector<double>& scale, double sigma,
                   int seeds, std::uint64_t rng_seed, double pair_sigma = 0.0) {
  std::vector<double> theta;
  for (const auto& p : form.parameters) theta.push_back(truth.at(p.name));
  std::mt19937_64 rng(rng_seed);
  std::normal_distribution<double> z(0.0, sigma);
  LawRows rows;
  rows.variables = form.variables;
  for (const auto& values : points) {
    std::vector<double> scaled = values;
    for (std::size_t i = 0; i < scaled.size(); ++i) scaled[i] *= scale[i];
    for (int s = 0; s < seeds; ++s) {
      const double shared = pair_sigma / sigma * z(rng);
      rows.rows.push_back({values, law_form_loss(form, theta, values) * std::exp(shared + z(rng)), "baseline",
                           static_cast<std::uint64_t>(s), ""});
      rows.rows.push_back({values, law_form_loss(form, theta, scaled) * std::exp(shared + z(rng)), "variant",
                           static_cast<std::uint64_t>(s), ""});
    }
  }
  return rows;
}

TEST(LawFormMultiplier, TheFrontierOfAFileIsTheBuiltInEnvelope) {
  const LawForm form = parse_law_form(kChinchilla, "chinchilla.yaml");
  EXPECT_EQ(law_frontier(form), LawFrontier::kComputeOptimal);
  EXPECT_EQ(law_frontier(parse_law_form(kCompute, "c.yaml")), LawFrontier::kCompute);
  EXPECT_EQ(law_frontier(parse_law_form(kParams, "n.yaml")), LawFrontier::kParams);
  // The closed form of Chinchilla's envelope (core/scaling/compute_multiplier.h) at three budgets.
  const test::ChinchillaTruth t;
  LawFit fit;
  fit.kind = LawKind::chinchilla;
  fit.theta = {std::log(t.E), t.alpha, t.beta, std::log(t.A), std::log(t.B)};
  describe_fit(fit);
  const FrontierLaw envelope = *frontier_law(fit);
  for (double c : {1e18, 1e20, 1e22}) {
    // Parameters in the file's order: A, B, E, alpha, beta.
    EXPECT_NEAR(law_form_frontier_loss(form, {t.A, t.B, t.E, t.alpha, t.beta}, c, 1e8, 3e9),
                frontier_loss(envelope, c), 1e-9);
  }
}

TEST(LawFormMultiplier, AVariantAtAKnownScaleOfComputeGivesItsMultiplier) {
  quiet_solver_logging();
  LawFormSettings settings;
  settings.bootstrap = 40;
  {  // Chinchilla: the variant is the baseline at 1.2x N and 1.2x D, so 1.44x the compute on the frontier
    const LawForm form = parse_law_form(kChinchilla, "chinchilla.yaml");
    const test::ChinchillaTruth t;
    const LawRows rows = two_groups(form, {{"A", t.A}, {"B", t.B}, {"E", t.E}, {"alpha", t.alpha}, {"beta", t.beta}},
                                    test::combinations({test::log_space(1e8, 3e9, 5), test::log_space(2e9, 2e11, 5)}), {1.2, 1.2},
                                    1e-5, 2, 1);
    const LawFormReport report = fit_law_form(form, rows, settings);
    ASSERT_FALSE(report.multipliers.empty());
    for (const auto& m : report.multipliers) {
      EXPECT_EQ(m.group, "variant");
      EXPECT_NEAR(m.value, 1.44, 0.01) << m.budget;
      EXPECT_LE(m.interval.lo, m.value);
      EXPECT_GE(m.interval.hi, m.value);
    }
  }
  {  // A law in compute: the variant is the baseline at 1.3x C
    const LawForm form = parse_law_form(kCompute, "c.yaml");
    const LawRows rows = two_groups(form, {{"E", 1.5}, {"A", 40.0}, {"alpha", 0.15}},
                                    test::combinations({test::log_space(1e17, 1e21, 5)}), {1.3}, 1e-5, 2, 2);
    const LawFormReport report = fit_law_form(form, rows, settings);
    ASSERT_EQ(report.multipliers.size(), 5u) << "the decades 1e17 to 1e21";
    for (const auto& m : report.multipliers) EXPECT_NEAR(m.value, 1.3, 0.01) << m.budget;
  }
  {  // A law in size: the variant is the baseline at 2x N, read at sizes
    const LawForm form = parse_law_form(kParams, "n.yaml");
    const LawRows rows = two_groups(form, {{"E", 1.8}, {"A", 400.0}, {"alpha", 0.3}},
                                    test::combinations({test::log_space(1e7, 1e10, 6)}), {2.0}, 1e-5, 2, 3);
    const LawFormReport report = fit_law_form(form, rows, settings);
    ASSERT_FALSE(report.multipliers.empty());
    for (const auto& m : report.multipliers) EXPECT_NEAR(m.value, 2.0, 0.01) << m.budget;
  }
}

// The compute law L(C) = 1.5 + 4e4·C^-0.25 (from 3.75 at 1e17 to 1.72 at 1e21), 5 budgets a decade apart,
// 3 seeds, noise 0.006 shared by a pair and 0.006 a run's own (as the built-in ladders' calibration): the
// multiplier at 1e19 over `test::calibration_draws()` studies, the groups paired.
void calibrate(double truth) {
  quiet_solver_logging();
  const LawForm form = parse_law_form(kCompute, "c.yaml");
  int bounded = 0, covers = 0, excludes_one = 0;
  for (int draw = 0; draw < test::calibration_draws(); ++draw) {
    LawFormSettings settings;
    settings.bootstrap = 200;
    settings.seed = static_cast<std::uint64_t>(draw);
    settings.threads = 1;
    settings.budgets = {1e19};
    const LawRows rows = two_groups(form, {{"E", 1.5}, {"A", 4e4}, {"alpha", 0.25}},
                                    test::combinations({test::log_space(1e17, 1e21, 5)}), {truth}, 0.006, 3,
                                    7000 + static_cast<std::uint64_t>(draw), 0.006);
    const LawFormReport report = fit_law_form(form, rows, settings);
    EXPECT_TRUE(report.groups.at(0).paired);
    const LawFormMultiplier m = report.multipliers.at(0);
    if (!std::isfinite(m.interval.lo) || !std::isfinite(m.interval.hi)) continue;
    ++bounded;
    covers += m.interval.lo <= truth && truth <= m.interval.hi ? 1 : 0;
    excludes_one += m.interval.lo > 1.0 || m.interval.hi < 1.0 ? 1 : 0;
  }
  const double coverage = bounded > 0 ? static_cast<double>(covers) / bounded : 0.0;
  const double false_positives = static_cast<double>(excludes_one) / test::calibration_draws();
  std::printf("| law file's compute multiplier, L(C) at 5 budgets, pairs share their noise, 3 seeds | %.3g | %d | %d | %.1f%% | %.1f%% |\n", truth,
              test::calibration_draws(), bounded, 100.0 * coverage, 100.0 * false_positives);
  EXPECT_GE(bounded, 0.95 * test::calibration_draws());
  EXPECT_GE(coverage, 0.90);
  EXPECT_LE(coverage, 0.98);
  if (truth == 1.0) {
    EXPECT_LE(false_positives, 0.07);
  }
}

// Runs of one seed share noise across groups: drawn alike (paired), the multiplier's interval leaves that
// noise out and is narrower than the same groups drawn apart (different seeds per group).
TEST(LawFormMultiplier, PairedSeedsAreDrawnAlikeAndNarrowTheInterval) {
  quiet_solver_logging();
  const LawForm form = parse_law_form(kCompute, "c.yaml");
  LawFormSettings settings;
  settings.bootstrap = 200;
  settings.budgets = {1e19};
  LawRows rows = two_groups(form, {{"E", 1.5}, {"A", 4e4}, {"alpha", 0.25}},
                            test::combinations({test::log_space(1e17, 1e21, 5)}), {1.3}, 0.002, 3, 8, 0.01);
  const LawFormReport paired = fit_law_form(form, rows, settings);
  ASSERT_TRUE(paired.groups.at(0).paired);
  EXPECT_NE(paired.groups.at(0).resampling.find("drawn alike for every group"), std::string::npos);
  for (auto& r : rows.rows) {
    if (r.group == "variant") *r.seed += 100;  // the same runs, no longer pairs
  }
  const LawFormReport apart = fit_law_form(form, rows, settings);
  ASSERT_FALSE(apart.groups.at(0).paired);
  const Interval p = paired.multipliers.at(0).interval, a = apart.multipliers.at(0).interval;
  EXPECT_LT(std::log(p.hi / p.lo), 0.5 * std::log(a.hi / a.lo));
}

TEST(ScalingCalibration, ALawFilesComputeMultiplierCoversItsTruth) { calibrate(1.3); }

TEST(ScalingCalibration, ALawFilesComputeMultiplierWithNoEffectRarelyExcludesOne) { calibrate(1.0); }

}  // namespace
}  // namespace gammalab
