// The same runs in any order give the same bytes out: a fit puts its runs in one canonical order on entry
// (core/scaling/run_order.h) and draws each bootstrap block from a generator keyed by what the block is, so
// neither a CSV file's row order nor the store's listing order nor the number of threads moves a digit.
#include <algorithm>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/fit_report.h"
#include "core/scaling/fit_runs.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

double power_loss(double c) { return 1.0 + 9.0 * std::pow(c, -0.08); }

// Baseline, unified and the control qknorm on a paired ladder, and a surface of branches for law chinchilla.
std::vector<RunPoint> ladder_with_control() {
  auto design = test::paired_design(power_loss, 3, 0.006, 0.006);
  std::vector<RunPoint> runs = test::paired_ladder(design, 5);
  design.multiplier = 1.1;
  for (RunPoint r : test::paired_ladder(design, 6)) {
    if (r.group != "unified") continue;
    r.group = "qknorm";
    runs.push_back(r);
  }
  return runs;
}

FitOptions options(std::optional<LawKind> law, int threads) {
  FitOptions o;
  o.law = law;
  o.bootstrap = 60;
  o.seed = 7;
  o.settings.grid_exponent = {0.1, 0.5};
  o.settings.grid_e = {-0.5, 0.5};
  o.settings.grid_coef = {0.0, 5.0};
  o.settings.threads = threads;
  return o;
}

void expect_order_free(const std::vector<RunPoint>& runs, std::optional<LawKind> law) {
  quiet_solver_logging();
  const std::string reference = to_json(fit_runs(runs, options(law, 1))).dump();
  std::mt19937_64 rng(3);
  for (int order = 0; order < 3; ++order) {
    std::vector<RunPoint> shuffled = runs;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    EXPECT_EQ(to_json(fit_runs(shuffled, options(law, 1 + order % 2))).dump(), reference) << "order " << order;
  }
  std::vector<RunPoint> reversed(runs.rbegin(), runs.rend());
  EXPECT_EQ(to_json(fit_runs(reversed, options(law, 2))).dump(), reference);
}

TEST(ScalingOrder, ALadderWithAControlGivesTheSameBytesInAnyOrderAndOnAnyThreads) {
  expect_order_free(ladder_with_control(), LawKind::c);
}

TEST(ScalingOrder, ASurfaceOfBranchesGivesTheSameBytesInAnyOrder) {
  expect_order_free(test::branch_surface(test::BranchSurface{}, 9), LawKind::chinchilla);
}

}  // namespace
}  // namespace gammalab
