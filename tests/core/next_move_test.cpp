// The run that narrows the interval most per FLOP (core/scaling/next_move.h): the moves a design can make, their
// value by simulation, and the greedy path to a target width against the fixed design that reaches it.
#include "core/scaling/next_move.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace gammalab {
namespace {

// Five sizes half a decade of compute apart, three paired seeds, the paper's effect at noise 0.01, few enough
// studies and resamples to keep the test small (each value is a median over the studies: stable to a few %).
PowerDesign ladder() {
  PowerDesign design;
  design.compute = {1e12, 3.16e12, 1e13, 3.16e13, 1e14};
  design.seeds = 3;
  design.noise = 0.01;
  design.seed_correlation = 0.5;
  design.multiplier = 1.22;
  design.studies = 120;
  design.resamples = 80;
  design.seed = 7;
  return design;
}

TEST(NextMove, TheCandidatesAreASeedAtEachSizeANewSizeEitherSideAndOneBetweenEachTwo) {
  const PowerDesign design = ladder();
  EXPECT_EQ(candidate_moves(design, {3, false}).size(), 5u + 1u + 4u) << "no size below the ladder unless asked";
  const std::vector<Move> moves = candidate_moves(design, {3, true});
  ASSERT_EQ(moves.size(), 5u + 2u + 4u);
  EXPECT_EQ(moves[0].kind, MoveKind::kSeed);
  EXPECT_EQ(moves[0].runs, 3) << "one paired seed is one run of every arm";
  EXPECT_DOUBLE_EQ(moves[4].flops, 3 * 1e14);
  EXPECT_EQ(moves[5].kind, MoveKind::kLarger);
  EXPECT_NEAR(moves[5].compute, 3.16e14, 0.01e14) << "one ladder step above the largest";
  EXPECT_EQ(moves[5].seeds, 3) << "a new size trains the seeds every size has";
  EXPECT_DOUBLE_EQ(moves[5].flops, 9 * moves[5].compute);
  EXPECT_EQ(moves[6].kind, MoveKind::kSmaller);
  EXPECT_NEAR(moves[6].compute, 3.16e11, 0.01e11);
  EXPECT_EQ(moves[7].kind, MoveKind::kBetween);
  EXPECT_NEAR(moves[7].compute, std::sqrt(1e12 * 3.16e12), 1e9);

  const PowerDesign grown = apply_move(apply_move(design, moves[2]), moves[6]);
  ASSERT_EQ(grown.compute.size(), 6u);
  EXPECT_DOUBLE_EQ(grown.compute.front(), moves[6].compute) << "sizes stay in order of compute";
  EXPECT_EQ(grown.seeds_per_size, (std::vector<int>{3, 3, 3, 4, 3, 3}));
  EXPECT_DOUBLE_EQ(design_flops(grown, 3), design_flops(design, 3) + moves[2].flops + moves[6].flops);
}

TEST(NextMove, RankingIsDeterministicWhateverTheThreadsAndNamesTheCheapestNarrowingFirst) {
  const PowerDesign design = ladder();
  const std::vector<MoveValue> one = rank_moves(design, {2, true}, 1);
  const std::vector<MoveValue> two = rank_moves(design, {2, true}, 2);
  ASSERT_EQ(one.size(), two.size());
  for (std::size_t k = 0; k < one.size(); ++k) {
    EXPECT_EQ(one[k].move.kind, two[k].move.kind);
    EXPECT_EQ(one[k].move.compute, two[k].move.compute);
    EXPECT_EQ(one[k].ratio_after, two[k].ratio_after) << "the same studies, bit for bit";
  }
  for (std::size_t k = 1; k < one.size(); ++k) EXPECT_GE(one[k - 1].gain_per_flop, one[k].gain_per_flop);
  // The pooled multiplier weighs a size by its seeds times the baseline's slope squared, the same slope at every
  // size here: a seed adds as much precision at any size, and per FLOP the cheapest size's is worth 100 times the
  // largest's. The ranking says so.
  std::printf("best move: kind %d at %.3g FLOPs, hi/lo %.3f -> %.3f\n", static_cast<int>(one[0].move.kind),
              one[0].move.compute, one[0].ratio_before, one[0].ratio_after);
  EXPECT_GT(one[0].gain_per_flop, 0.0);
  EXPECT_LE(one[0].move.compute, 3.16e12) << "the best move per FLOP is at the cheap end of the ladder";
}

TEST(NextMove, TheGreedyPathReachesTheTargetForLessThanTheFixedDesignAndItsWidthHoldsOnFreshStudies) {
  const PowerDesign design = ladder();
  const double target = 1.15;
  const MovePlan plan = plan_to_width(design, {2, false}, target, 1e18, 30, 2);
  ASSERT_EQ(plan.stopped, "target") << plan.moves.size() << " moves, hi/lo " << plan.ratio;
  EXPECT_LE(plan.ratio, target);
  const std::optional<FixedDesign> fixed = fixed_design_for_width(design, 2, target, 32);
  ASSERT_TRUE(fixed);
  const double adaptive = design_flops(design, 2) + plan.flops_added;
  std::printf("target hi/lo %.2f: %zu moves, %.3g FLOPs (hi/lo %.3f); fixed design %d seeds per size, %.3g FLOPs "
              "(hi/lo %.3f): %.0f%%\n",
              target, plan.moves.size(), adaptive, plan.ratio, fixed->seeds, fixed->flops, fixed->ratio,
              100.0 * adaptive / fixed->flops);
  for (const MoveValue& v : plan.moves) {
    std::printf("  move kind %d at %.3g FLOPs: hi/lo %.3f -> %.3f\n", static_cast<int>(v.move.kind), v.move.compute,
                v.ratio_before, v.ratio_after);
  }
  RecordProperty("adaptive_percent_of_fixed", static_cast<int>(std::lround(100.0 * adaptive / fixed->flops)));
  EXPECT_LT(adaptive, fixed->flops);

  // The moves were chosen on the simulated widths they promised: drawn afresh (other studies, more of them), the
  // design they built is about as narrow as promised, not an artefact of the draws that chose it.
  PowerDesign built = design;
  for (const MoveValue& v : plan.moves) built = apply_move(built, v.move);
  built.seed = 12345;
  built.studies = 300;
  const double fresh = simulate_power(built).median_ratio;
  std::printf("the built design on fresh studies: hi/lo %.3f\n", fresh);
  EXPECT_LT(std::log(fresh), std::log(target) * 1.10);
}

TEST(NextMove, ItStopsAtTheBudgetAtTheMoveLimitAndRefusesADesignWithNoInterval) {
  const PowerDesign design = ladder();
  const MovePlan poor = plan_to_width(design, {}, 1.01, 1e11, 30);
  EXPECT_EQ(poor.stopped, "budget") << "no move costs under 1e11 FLOPs";
  // A budget the best move passes but a cheaper narrowing one does not: the cheaper one is made. With 12 seeds
  // at the smallest size already, a seed at the second size is worth most per FLOP (6.3e12 FLOPs), and one more
  // at the smallest (2e12) still narrows.
  PowerDesign crowded = ladder();
  crowded.seeds_per_size = {12, 3, 3, 3, 3};
  const std::vector<MoveValue> ranked = rank_moves(crowded, {});
  ASSERT_GT(ranked.front().move.flops, 5e12) << "the best move does not fit in the budget below";
  const MovePlan tight = plan_to_width(crowded, {}, 1.01, 5e12, 1);
  ASSERT_EQ(tight.moves.size(), 1u) << tight.stopped;
  EXPECT_LE(tight.moves[0].move.flops, 5e12);
  EXPECT_GT(tight.moves[0].gain_per_flop, 0.0);
  const MovePlan two = plan_to_width(design, {}, 1.01, 1e18, 2);
  EXPECT_EQ(two.stopped, "moves");
  EXPECT_EQ(two.moves.size(), 2u);
  EXPECT_DOUBLE_EQ(two.flops_added, two.moves[0].move.flops + two.moves[1].move.flops);

  PowerDesign single = ladder();
  single.seeds = 1;
  EXPECT_THROW(rank_moves(single, {}), std::invalid_argument);
  EXPECT_THROW(plan_to_width(design, {}, 1.0, 1e18, 3), std::invalid_argument) << "a width of 1 is no interval";
  EXPECT_THROW(candidate_moves(design, {1, false}), std::invalid_argument);
  PowerDesign uneven = ladder();
  uneven.seeds_per_size = {3, 3};
  EXPECT_THROW(simulate_power(uneven), std::invalid_argument);
}

}  // namespace
}  // namespace gammalab
