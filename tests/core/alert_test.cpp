// The loss-spike rule (core/alert.h): a falling or noisy curve never trips it, a rise by the ratio does, once the
// window has its points; resends and replays (steps already seen) are ignored, as are non-finite values.
#include "core/alert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace gammalab {
namespace {

TEST(LossSpikeWatch, AFallingNoisyCurveNeverTripsIt) {
  LossSpikeWatch watch(1.5);
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (std::int64_t step = 1; step <= 2000; ++step) {
    // A pre-training curve: from ~10 down to ~3, with noise of a small batch.
    const double loss = 3.0 + 7.0 * std::exp(-static_cast<double>(step) / 200) + noise(rng);
    EXPECT_FALSE(watch.add(step, loss)) << "step " << step << ": " << loss;
  }
}

TEST(LossSpikeWatch, ARiseByTheRatioOverTheWindowsMeanIsASpike) {
  LossSpikeWatch watch(1.5);
  for (std::int64_t step = 1; step <= 20; ++step) ASSERT_FALSE(watch.add(step, 4.0));
  EXPECT_FALSE(watch.add(21, 5.6)) << "1.4x the mean: below the ratio";
  const std::optional<std::string> spike = watch.add(22, 6.5);
  ASSERT_TRUE(spike);
  EXPECT_NEAR(watch.last_mean(), (15 * 4.0 + 5.6) / 16, 1e-12) << "the mean of the previous 16 points";
  EXPECT_EQ(*spike, "train/loss at step 22 is 6.5, 1.59× the mean of its previous 16 points (4.1)");
}

TEST(LossSpikeWatch, NothingBeforeTheWindowHasItsPoints) {
  LossSpikeWatch watch(1.5);
  for (std::int64_t step = 1; step < static_cast<std::int64_t>(LossSpikeWatch::kMinPoints); ++step) {
    ASSERT_FALSE(watch.add(step, 1.0));
  }
  EXPECT_FALSE(watch.add(static_cast<std::int64_t>(LossSpikeWatch::kMinPoints), 100.0)) << "7 points before it";
  EXPECT_TRUE(watch.add(static_cast<std::int64_t>(LossSpikeWatch::kMinPoints) + 1, 100.0)) << "8 points before it";
}

TEST(LossSpikeWatch, ResentStepsAndNonFiniteValuesAreIgnored) {
  LossSpikeWatch watch(1.5);
  for (std::int64_t step = 1; step <= 10; ++step) ASSERT_FALSE(watch.add(step, 2.0));
  EXPECT_FALSE(watch.add(10, 50.0)) << "a resend of step 10";
  EXPECT_FALSE(watch.add(3, 50.0)) << "a replay of an earlier step";
  EXPECT_FALSE(watch.add(11, std::numeric_limits<double>::quiet_NaN())) << "the diverged rule's";
  EXPECT_FALSE(watch.add(12, std::numeric_limits<double>::infinity()));
  EXPECT_TRUE(watch.add(13, 50.0)) << "the window holds the ten finite points";
}

TEST(AlertMessage, TheFirstLineBoundedWithoutControlCharacters) {
  EXPECT_EQ(alert_message_line("diverged at step 4: train/loss is nan\nbacktrace..."), "diverged at step 4: train/loss is nan");
  EXPECT_EQ(alert_message_line("a\x1b[2Jb"), "a[2Jb");
  const std::string long_line(5000, 'x');
  EXPECT_EQ(alert_message_line(long_line).size(), kMaxAlertMessageBytes);
  const std::string cut = alert_message_line(std::string(kMaxAlertMessageBytes - 1, 'x') + "é");
  EXPECT_EQ(cut.size(), kMaxAlertMessageBytes - 1) << "a character is never split";
}

}  // namespace
}  // namespace gammalab
