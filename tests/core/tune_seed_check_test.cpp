// The tune seed as a check (core/scaling/tune_seed_check.h), with known answers: a planted disagreement is
// found through fit_runs and named in its warnings, and simulated studies of three seeds (what users run) with
// no disagreement raise the warning at most at its family-wise rate, while a planted one is found.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/job_config.h"
#include "core/metric_names.h"
#include "core/scaling/fit_runs.h"
#include "core/scaling/job_points.h"
#include "core/scaling/tune_seed_check.h"

namespace gammalab {
namespace {

constexpr double kSeedSd = 0.005;

// A study: two arms at five sizes (tokens 20 per parameter), three main seeds each and one tune run at the
// pick, every loss on its arm's law plus Gaussian seed noise; `planted` moves one tune run by that many s.d.
struct Study {
  std::vector<RunPoint> main, tune;
};
Study simulate(std::mt19937_64& rng, double planted = 0.0) {
  std::normal_distribution<double> noise(0.0, kSeedSd);
  Study s;
  for (const std::string group : {"baseline", "unified"}) {
    const double a = group == "baseline" ? 40.0 : 38.0;
    for (const double n : {1e5, 2e5, 4e5, 8e5, 1.6e6}) {
      const double loss = 1.8 + a * std::pow(n, -0.3);
      for (std::uint64_t seed = 0; seed < 3; ++seed) {
        s.main.push_back({n, 20 * n, 0.0, loss + noise(rng), group, group, seed});
      }
      const bool here = group == "unified" && n == 4e5;
      s.tune.push_back({n, 20 * n, 0.0, loss + noise(rng) + (here ? planted * kSeedSd : 0.0), group, group, 100});
    }
  }
  return s;
}

TEST(TuneSeedCheck, APlantedDisagreementIsFoundThroughTheFitAndNamed) {
  std::mt19937_64 rng(7);
  const Study s = simulate(rng, 20.0);
  FitOptions options;
  options.bootstrap = 0;
  options.tune_runs_at_pick = s.tune;
  const FitReport report = fit_runs(s.main, options);
  ASSERT_TRUE(report.tune_seed);
  ASSERT_EQ(report.tune_seed->cells.size(), 10u);
  for (const TuneSeedCell& c : report.tune_seed->cells) {
    EXPECT_EQ(c.disagrees, c.group == "unified" && c.params == 4e5) << c.group << " N=" << c.params << " t=" << c.t;
    EXPECT_EQ(c.main_runs, 3);
    EXPECT_EQ(c.df, 10.0) << "pooled over the group's five configurations";
  }
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_NE(report.warnings.back().find("disagree with the main seeds beyond chance at 1 of 10 configurations "
                                        "(unified at N=4e+05, D=8e+06"),
            std::string::npos)
      << report.warnings.back();
  // Stored and read back whole, as the coordinator keeps its fits.
  const FitReport stored = fit_report_from_json(to_json(report));
  ASSERT_TRUE(stored.tune_seed);
  EXPECT_EQ(to_json(stored).dump(), to_json(report).dump());
}

// The tune runs at the pick are those with a main job's config and a seed of their own: at another LR, or with a
// main run's seed (that run again), a tune run is no further seed of the configuration.
TEST(TuneSeedCheck, TheTuneRunsAtThePickAreTheMainConfigurationWithOtherSeeds) {
  auto job = [](const std::string& id, double lr, std::uint64_t seed, double loss) {
    JobConfig c;
    c.optim.lr = lr;
    c.seed = seed;
    c.steps = 10;
    c.log_every = seed + 1;  // what only logs does not tell configurations apart
    JobLosses j{id, id, to_json(c).dump(), {}, {}};
    j.add({10, 100, std::string(metric_names::kValLoss), loss});
    return j;
  };
  const std::vector<JobLosses> main = {job("m0", 0.01, 0, 3.0), job("m1", 0.01, 1, 3.1), job("m2", 0.01, 2, 3.2)};
  const std::vector<JobLosses> tune = {job("t-pick", 0.01, 100, 3.3), job("t-main-seed", 0.01, 1, 3.1),
                                       job("t-other-lr", 0.02, 100, 3.4)};
  const std::vector<RunPoint> at_pick = tune_runs_at_pick(main, tune, "scale.variant");
  ASSERT_EQ(at_pick.size(), 1u);
  EXPECT_EQ(at_pick[0].label, "t-pick");
  EXPECT_EQ(at_pick[0].loss, 3.3);
}

TEST(TuneSeedCheck, NoTuneRunsNoCheck) {
  std::mt19937_64 rng(1);
  const Study s = simulate(rng);
  FitOptions options;
  options.bootstrap = 0;
  EXPECT_FALSE(fit_runs(s.main, options).tune_seed);
  EXPECT_FALSE(tune_seed_check({s.main.front()}, s.tune)) << "a single main run has no seed spread";
}

TEST(TuneSeedCheck, TheSameRunsInAnyOrderGiveTheSameCheck) {
  std::mt19937_64 rng(3);
  Study s = simulate(rng, 3.0);
  const auto first = tune_seed_check(s.main, s.tune);
  ASSERT_TRUE(first);
  std::shuffle(s.main.begin(), s.main.end(), rng);
  std::shuffle(s.tune.begin(), s.tune.end(), rng);
  const auto second = tune_seed_check(s.main, s.tune);
  ASSERT_TRUE(second);
  ASSERT_EQ(first->cells.size(), second->cells.size());
  for (std::size_t i = 0; i < first->cells.size(); ++i) {
    EXPECT_EQ(first->cells[i].t, second->cells[i].t);  // bit for bit
    EXPECT_EQ(first->cells[i].sd, second->cells[i].sd);
  }
}

// 2,000 studies of three seeds without a disagreement: the warning's family-wise rate is at most 5% (Bonferroni
// over the 10 configurations; with 2,000 studies a true 5% is under 6.2% with probability 0.99).
TEST(TuneSeedCheck, WithoutADisagreementTheWarningComesAtMostAtItsRate) {
  std::mt19937_64 rng(11);
  constexpr int kStudies = 2000;
  int warned = 0;
  for (int i = 0; i < kStudies; ++i) {
    const Study s = simulate(rng);
    const auto check = tune_seed_check(s.main, s.tune);
    ASSERT_TRUE(check);
    warned += check->disagreeing() > 0 ? 1 : 0;
  }
  const double rate = double(warned) / kStudies;
  EXPECT_LE(rate, 0.062) << warned << " of " << kStudies;
  EXPECT_GE(rate, 0.01) << "a test that never fires is no test: " << warned << " of " << kStudies;
}

// A tune run 10 s.d. from its configuration's mean (a bimodal outcome's other mode, say) is found in at least
// 90% of the studies, and named at its own configuration.
TEST(TuneSeedCheck, APlantedDisagreementOfTenSeedSdIsFound) {
  std::mt19937_64 rng(13);
  constexpr int kStudies = 1000;
  int found = 0;
  for (int i = 0; i < kStudies; ++i) {
    const Study s = simulate(rng, 10.0);
    const auto check = tune_seed_check(s.main, s.tune);
    ASSERT_TRUE(check);
    found += std::any_of(check->cells.begin(), check->cells.end(), [](const TuneSeedCell& c) {
      return c.disagrees && c.group == "unified" && c.params == 4e5;
    });
  }
  EXPECT_GE(double(found) / kStudies, 0.9) << found << " of " << kStudies;
}

}  // namespace
}  // namespace gammalab
