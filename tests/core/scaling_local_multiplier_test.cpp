// The law-free multiplier's reading of the baseline's curve (core/scaling/local_multiplier.h): exact where the
// curve is straight in ln C, close to the truth on a convex power law where the chord between sizes is not, and
// continued along the end size's tangent outside the sizes measured.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "core/scaling/local_multiplier.h"

namespace gammalab {
namespace {

TEST(LocalMultiplier, AStraightCurveIsReadExactlyInsideAndOutside) {
  const BaselineCurve curve({{std::log(1e12), 2.6}, {std::log(1e10), 3.0}, {std::log(1e11), 2.8}});
  // Halfway between the first two sizes' losses: halfway in ln C.
  const LocalLog at = local_log_multiplier(curve, {std::log(1e10), 2.9});
  EXPECT_TRUE(at.inside);
  EXPECT_NEAR(at.value, 0.5 * std::log(10.0), 1e-9);
  EXPECT_NEAR(at.slope, -0.2 / std::log(10.0), 1e-9);
  // Below the baseline's best: along the line beyond it, and said to be outside.
  const LocalLog beyond = local_log_multiplier(curve, {std::log(1e12), 2.5});
  EXPECT_FALSE(beyond.inside);
  EXPECT_NEAR(beyond.value, 0.5 * std::log(10.0), 1e-9);
}

// A convex baseline, L = E + A·C^-alpha with alpha = 0.15, at sizes a decade of compute apart, and a variant at
// 1.3x: the chord (two sizes) reads ~1.36, the monotone cubic through five within 0.3% of 1.3 and through three
// within 1%.
double power_law(double log_compute) { return 1.5 + 40.0 * std::exp(-0.15 * log_compute); }

TEST(LocalMultiplier, TheCubicIsCloseToTheTruthOnAConvexCurveWhereTheChordIsNot) {
  std::vector<CurvePoint> points;
  for (int k = 0; k < 5; ++k) {
    const double x = std::log(1e10) + k * std::log(10.0);
    points.push_back({x, power_law(x)});
  }
  const BaselineCurve cubic(points);
  EXPECT_FALSE(cubic.chord());
  const double truth = std::log(1.3);
  for (int k = 0; k < 4; ++k) {
    const CurvePoint variant{points[k].log_compute, power_law(points[k].log_compute + truth)};
    const LocalLog read = local_log_multiplier(cubic, variant);
    EXPECT_TRUE(read.inside);
    EXPECT_NEAR(read.value, truth, 0.003) << "size " << k;
    // The same two sizes alone: the chord, biased up by about exp(alpha·t·(h - t)/2).
    const BaselineCurve chord({points[k], points[k + 1]});
    EXPECT_TRUE(chord.chord());
    EXPECT_GT(local_log_multiplier(chord, variant).value - truth, 0.03) << "size " << k;
  }
  // Three sizes: Fritsch-Carlson's slopes.
  const BaselineCurve three({points[0], points[1], points[2]});
  for (int k = 0; k < 2; ++k) {
    const CurvePoint variant{points[k].log_compute, power_law(points[k].log_compute + truth)};
    EXPECT_NEAR(local_log_multiplier(three, variant).value, truth, 0.01) << "size " << k;
  }
  // The largest size's variant is beyond the baseline's best: the tangent there, a little short of the truth.
  const CurvePoint last{points[4].log_compute, power_law(points[4].log_compute + truth)};
  const LocalLog beyond = local_log_multiplier(cubic, last);
  EXPECT_FALSE(beyond.inside);
  EXPECT_NEAR(beyond.value, truth, 0.03);
}

TEST(LocalMultiplier, ANoisyCurveThatTurnsIsStillReadMonotonicallyBetweenItsSizes) {
  // The middle size came out worse than the first: each segment stays monotone, and a level both segments
  // reach is read at the crossing nearest the variant's own compute.
  const BaselineCurve curve({{0.0, 3.0}, {1.0, 3.1}, {2.0, 2.8}});
  const LocalLog near_first = local_log_multiplier(curve, {0.2, 3.05});
  ASSERT_TRUE(near_first.inside);
  EXPECT_GT(near_first.value + 0.2, 0.0);
  EXPECT_LT(near_first.value + 0.2, 1.0);
  const LocalLog near_last = local_log_multiplier(curve, {1.8, 3.05});
  ASSERT_TRUE(near_last.inside);
  EXPECT_GT(near_last.value + 1.8, 1.0);
  EXPECT_LT(near_last.value + 1.8, 2.0);
}

// The curve as drawn (loss_at) is the curve the multiplier is read off: it passes through the sizes, and a
// reading's end, inside or along the tangent beyond the last size, lies on it at the variant's loss.
TEST(LocalMultiplier, TheDrawnCurveHoldsEveryReadingsEnd) {
  std::vector<CurvePoint> points;
  for (int k = 0; k < 4; ++k) {
    const double x = std::log(1e10) + k * std::log(10.0);
    points.push_back({x, power_law(x) + (k == 2 ? 0.01 : 0.0)});
  }
  const BaselineCurve curve(points);
  for (const CurvePoint& p : points) EXPECT_NEAR(curve.loss_at(p.log_compute), p.loss, 1e-12);
  for (const double loss : {power_law(std::log(3e10)), power_law(std::log(2e12)), power_law(std::log(1e14))}) {
    const LocalLog reach = curve.log_compute_to_reach(loss, std::log(1e11));
    ASSERT_TRUE(std::isfinite(reach.value));
    EXPECT_NEAR(curve.loss_at(reach.value), loss, 1e-9) << "loss " << loss << (reach.inside ? " inside" : " outside");
  }
  EXPECT_TRUE(std::isnan(BaselineCurve({{0.0, 3.0}}).loss_at(0.0)));
}

TEST(LocalMultiplier, FewerThanTwoSizesOrAFlatCurveGiveNoValue) {
  EXPECT_TRUE(std::isnan(local_log_multiplier(BaselineCurve({{0.0, 3.0}}), {0.0, 2.9}).value));
  EXPECT_TRUE(std::isnan(local_log_multiplier(BaselineCurve({{0.0, 3.0}, {1.0, 3.0}}), {0.0, 2.9}).value));
}

}  // namespace
}  // namespace gammalab
