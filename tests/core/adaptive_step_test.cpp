// One step of a study that plans itself (core/scaling/adaptive_step.h): the design its runs form, and the
// decision after a refit: stop at the target, at the batch limit or the budget, or the move to make, the same
// for the same runs in any order.
#include "core/scaling/adaptive_step.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "core/scaling/fit.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/verdict.h"
#include "tests/core/law_free_fit.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

double straight_loss(double compute) { return 3.0 - 0.08 * std::log(compute / 1e10); }

std::vector<RunPoint> ladder(int seeds, std::uint64_t seed = 1) {
  auto design = test::paired_design(straight_loss, seeds, 0.006, 0.006);
  design.compute = {1e10, 1e11, 1e12, 1e13};
  design.multiplier = 1.3;
  return test::paired_ladder(design, seed);
}

FitReport refit(const std::vector<RunPoint>& runs) {
  quiet_solver_logging();
  return fit_runs(runs, test::law_free_fit(0));
}

PowerDesign planning() {
  PowerDesign p;
  p.studies = 40;
  p.resamples = 50;
  return p;
}

TEST(AdaptiveStep, TheDesignIsTheBaselinesSizesInOrderOfComputeWithTheSeedsEachHas) {
  std::vector<RunPoint> runs = ladder(2);
  runs.erase(std::remove_if(runs.begin(), runs.end(),
                            [](const RunPoint& r) { return r.compute == 1e12 && r.seed == 1u; }),
             runs.end());
  std::reverse(runs.begin(), runs.end());
  const PowerDesign d = observed_design(runs, "baseline");
  EXPECT_EQ(d.compute, (std::vector<double>{1e10, 1e11, 1e12, 1e13}));
  EXPECT_EQ(d.seeds_per_size, (std::vector<int>{2, 2, 1, 2}));
  EXPECT_EQ(d.seeds, 1);
  EXPECT_THROW(observed_design(runs, "nobody"), std::invalid_argument);
  std::vector<RunPoint> surface = ladder(2);
  RunPoint branch = surface.front();
  branch.tokens *= 2;
  surface.push_back(branch);
  EXPECT_THROW(observed_design(surface, "baseline"), std::invalid_argument) << "a size with two budgets";
}

TEST(AdaptiveStep, ItStopsAtTheTargetOrTheBatchLimitAndOtherwiseNamesAMoveWithItsReason) {
  const std::vector<RunPoint> runs = ladder(2);
  const FitReport report = refit(runs);
  const double width = headline_multiplier(report.comparisons.at(0)).estimate.hi /
                       headline_multiplier(report.comparisons.at(0)).estimate.lo;
  AdaptiveTarget wide;
  wide.ratio = width * 1.01;
  const AdaptiveDecision done = decide_next(report, runs, planning(), {2, false}, wide, 0.0, 0);
  EXPECT_EQ(done.stop, kStopTarget);
  EXPECT_DOUBLE_EQ(done.ratio, width);
  EXPECT_EQ(done.widest, "unified over baseline");

  AdaptiveTarget narrow;
  narrow.ratio = 1.01;
  narrow.max_batches = 3;
  EXPECT_EQ(decide_next(report, runs, planning(), {2, false}, narrow, 0.0, 3).stop, kStopBatches);
  const AdaptiveDecision go = decide_next(report, runs, planning(), {2, false}, narrow, 0.0, 0);
  ASSERT_TRUE(go.stop.empty()) << go.why;
  ASSERT_TRUE(go.move);
  EXPECT_GT(go.move->gain_per_flop, 0.0);
  EXPECT_NE(go.why.find("simulated at the runs' noise"), std::string::npos) << go.why;
  if (go.move->move.kind == MoveKind::kSeed) {  // named as the runs name it: the baseline's N, the next seed
    EXPECT_GT(go.params, 0.0);
    EXPECT_EQ(go.seed, std::optional<std::uint64_t>(2)) << "seeds 0 and 1 ran";
  }

  // No move fits: stop, naming the best and what is left.
  narrow.budget_flops = 1.0;
  const AdaptiveDecision poor = decide_next(report, runs, planning(), {2, false}, narrow, 0.0, 0);
  EXPECT_EQ(poor.stop, kStopBudget);
  EXPECT_NE(poor.why.find("no move that narrows it fits in the budget"), std::string::npos) << poor.why;
  // Only a cheaper move fits: it is made, said to be the best in budget.
  narrow.budget_flops = go.move->move.flops;
  const AdaptiveDecision cheap = decide_next(report, runs, planning(), {2, false}, narrow, 0.0, 0);
  ASSERT_TRUE(cheap.stop.empty()) << cheap.why;
  EXPECT_LE(cheap.move->move.flops, go.move->move.flops);
}

TEST(AdaptiveStep, TheSameRunsInAnyOrderGiveTheSameDecision) {
  std::vector<RunPoint> runs = ladder(3, 4);
  AdaptiveTarget narrow;
  narrow.ratio = 1.01;
  const AdaptiveDecision first = decide_next(refit(runs), runs, planning(), {2, false}, narrow, 0.0, 0);
  std::shuffle(runs.begin(), runs.end(), std::mt19937_64(99));
  const AdaptiveDecision again = decide_next(refit(runs), runs, planning(), {2, false}, narrow, 0.0, 0, 2);
  ASSERT_TRUE(first.move && again.move);
  EXPECT_EQ(first.move->move.kind, again.move->move.kind);
  EXPECT_EQ(first.move->move.compute, again.move->move.compute);
  EXPECT_EQ(first.move->ratio_after, again.move->ratio_after);
  EXPECT_EQ(first.why, again.why);
}

TEST(AdaptiveStep, ASizeWithOneSeedGetsItsSecondSeedFirst) {
  const std::vector<RunPoint> runs = ladder(1);
  AdaptiveTarget target;
  const AdaptiveDecision d = decide_next(refit(runs), runs, planning(), {3, false}, target, 0.0, 0);
  ASSERT_TRUE(d.stop.empty()) << d.why;
  EXPECT_EQ(d.move->move.kind, MoveKind::kSeed);
  EXPECT_DOUBLE_EQ(d.move->move.compute, 1e10) << "the cheapest size with one seed";
  EXPECT_DOUBLE_EQ(d.params, std::sqrt(1e10 / 120.0)) << "the baseline's N there";
  EXPECT_EQ(d.seed, std::optional<std::uint64_t>(1));
  EXPECT_EQ(d.move->move.runs, 3);
  EXPECT_NE(d.why.find("a second seed there first"), std::string::npos) << d.why;
  EXPECT_NE(d.why.find("unified over baseline has no interval yet (target 1.210×)"), std::string::npos) << d.why;
}

}  // namespace
}  // namespace gammalab
