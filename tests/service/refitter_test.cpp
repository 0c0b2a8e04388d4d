// The coordinator refits a sweep's scaling law when its succeeded jobs change, and versions every fit.
#include <array>
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/scaling/run_point.h"
#include "core/param_count.h"
#include "core/scaling/fit.h"
#include "core/sweep/config_hash.h"
#include "server/refitter.h"
#include "tests/service/in_process_coordinator.h"
#include "tests/service/run_cli.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

// Two variants over five model widths; the jobs are run to success with val losses from a known law.
Sweep ladder() {
  Sweep sweep;
  sweep.name = "ladder";
  for (const std::string variant : {"baseline", "unified"}) {
    for (int width : {32, 48, 64, 96, 128}) {
      SweepJob job;
      job.config.model.d_model = width;
      job.config.scale.variant = variant;
      job.name = variant + "/d" + std::to_string(width);
      job.config_hash = config_hash(job.config);
      sweep.jobs.push_back(std::move(job));
    }
  }
  return sweep;
}

void run_to_success(Store& store, const std::string& worker, int count) {
  for (int i = 0; i < count; ++i) {
    auto lease = store.lease(worker, 60000);
    ASSERT_TRUE(lease);
    const JobConfig config = job_config_from_json(nlohmann::json::parse(lease->job.config_json));
    const double n = double(job_run_point(config, 0.0, "scale.variant", "").params);
    const double shift = config.scale.variant == "unified" ? 0.97 : 1.0;
    store.add_metrics(lease->job.id, lease->attempt,
                      {{config.steps, 1000, "val/loss", shift * (1.7 + 40.0 * std::pow(n, -0.35))}});
    ASSERT_TRUE(store.finish(worker, lease->job.id, lease->attempt, AttemptEnd::kSucceeded, ""));
  }
}

TEST(Refitter, FitsWhenSucceededJobsChangeAndVersionsEachFit) {
  quiet_solver_logging();
  const auto path = temp_db("refitter");
  Store store(path.string());
  const auto sweep = store.create_sweep(ladder(), "", "ladder.yaml", false).sweep;
  RefitOptions options;
  options.enabled = false;  // drive it by hand
  options.bootstrap = 20;
  Refitter refitter(store, options);
  const std::string worker = store.register_worker("host", 1, {}, "");

  EXPECT_EQ(refitter.refit(sweep.id), 0) << "nothing finished: nothing to fit";
  run_to_success(store, worker, 8);  // baseline x5, unified x3
  EXPECT_EQ(refitter.refit(sweep.id), 1);
  EXPECT_EQ(refitter.refit(sweep.id), 0) << "same jobs: no new version";
  run_to_success(store, worker, 2);
  EXPECT_EQ(refitter.refit(sweep.id), 2);

  // Tokens are the same for every job, so the default law is L(N); each version also holds L(C).
  const auto fits = store.fits(sweep.id, /*latest_only=*/false);
  ASSERT_EQ(fits.size(), 4u);
  EXPECT_EQ(fits[0].version, 2);
  EXPECT_EQ(fits[1].version, 2);
  EXPECT_EQ(fits[0].law, "n");
  EXPECT_EQ(fits[1].law, "c");
  EXPECT_EQ(fits[0].job_ids.size(), 10);
  EXPECT_EQ(fits[2].job_ids.size(), 8);
  EXPECT_EQ(fits[0].group_by, "scale.variant");
  const auto report = nlohmann::json::parse(fits[0].report_json);
  EXPECT_EQ(report.at("groups").size(), 2u) << report.dump(2);
  const auto latest = store.fits(sweep.id, true);
  ASSERT_EQ(latest.size(), 2u) << "both laws of the newest version";
  EXPECT_EQ(latest[0].version, 2);
  EXPECT_EQ(latest[1].version, 2);

  // The stored answer: unified's losses are 0.97 x baseline's at every size, so it needs less compute.
  const auto frontier = nlohmann::json::parse(latest[1].report_json);
  ASSERT_EQ(frontier.at("multipliers").size(), 1u) << frontier.dump(2);
  const auto& multiplier = frontier["multipliers"][0];
  EXPECT_EQ(multiplier["variant"], "unified");
  ASSERT_FALSE(multiplier["at_budgets"].empty()) << "budgets inside the data";
  for (const auto& at : multiplier["at_budgets"]) {
    EXPECT_GT(at["value"].get<double>(), 1.0) << at.dump();
    EXPECT_GE(at["compute"].get<double>(), multiplier["compute_range"][0].get<double>());
    EXPECT_LE(at["compute"].get<double>(), multiplier["compute_range"][1].get<double>());
  }
  std::filesystem::remove_all(path.parent_path());
}

TEST(Refitter, TheCliPrintsTheStoredFitOfASweepGivenAlone) {
  quiet_solver_logging();
  InProcessCoordinator coordinator("refitter-cli");
  Store& store = coordinator.store();
  const auto sweep = store.create_sweep(ladder(), "", "ladder.yaml", false).sweep;
  const std::string worker = store.register_worker("host", 1, {}, "");
  const std::string server = "--server " + coordinator.address() + " fit " + sweep.id;
  EXPECT_NE(run_cli(server).find("no stored fit of sweep " + sweep.id + " yet"), std::string::npos)
      << "without a stored fit it says so and fits here";

  RefitOptions options;
  options.enabled = false;
  options.bootstrap = 20;
  Refitter refitter(store, options);
  run_to_success(store, worker, 10);
  ASSERT_EQ(refitter.refit(sweep.id), 1);
  // Without --detail: the verdict once, from the law with a compute frontier, the other law named.
  const std::string brief = run_cli(server);
  EXPECT_NE(brief.find("== stored fit v1 of sweep " + sweep.id + ", law c, 10 jobs"), std::string::npos) << brief;
  EXPECT_EQ(brief.find(", law n, 10 jobs"), std::string::npos) << brief;
  EXPECT_NE(brief.find("(also stored: law n, whose verdict has no law check; --detail shows every law)"),
            std::string::npos) << brief;
  EXPECT_NE(brief.find("\nverdict:\n  unified reaches baseline's loss with"), std::string::npos) << brief;
  EXPECT_EQ(brief.find("compute multiplier unified over baseline"), std::string::npos) << brief;
  const std::string text = run_cli(server + " --detail");
  EXPECT_NE(text.find("== stored fit v1 of sweep " + sweep.id + ", law n, 10 jobs"), std::string::npos) << text;
  EXPECT_NE(text.find("== stored fit v1 of sweep " + sweep.id + ", law c, 10 jobs"), std::string::npos) << text;
  EXPECT_NE(text.find("law c, 20/20 bootstrap resamples"), std::string::npos) << text;
  EXPECT_NE(text.find("compute multiplier unified over baseline"), std::string::npos) << text;
  // One seed: no interval for the local multiplier, so the verdict quotes the law, and names it.
  EXPECT_NE(text.find("unified reaches baseline's loss with"), std::string::npos) << text;
  EXPECT_NE(text.find("(law c, 95% bootstrap interval over model sizes"), std::string::npos) << text;
  EXPECT_EQ(text.find("no stored fit"), std::string::npos) << text;
  const std::string refit = run_cli(server + " --bootstrap 0");
  EXPECT_EQ(refit.find("== stored fit"), std::string::npos) << "a fitting option fits here: " << refit;
  EXPECT_NE(refit.find("law n, 0/0 bootstrap resamples"), std::string::npos) << refit;

  // Two stored laws that both check the verdict (as a law file or a later refit may store): still one headline
  // per comparison, from the first law, as the dashboard's study card reads it; the other law named.
  const auto stored = store.fits(sweep.id, /*latest_only=*/true);
  const auto with_check = std::find_if(stored.begin(), stored.end(), [](const FitRecord& f) { return f.law == "c"; });
  ASSERT_NE(with_check, stored.end());
  ASSERT_EQ(store.add_fit(sweep.id, with_check->group_by, with_check->job_ids,
                          {{"c", with_check->report_json}, {"chinchilla", with_check->report_json}}),
            2);
  const std::string two = run_cli(server);
  EXPECT_NE(two.find("== stored fit v2 of sweep " + sweep.id + ", law c, 10 jobs"), std::string::npos) << two;
  EXPECT_EQ(two.find(", law chinchilla, 10 jobs"), std::string::npos) << two;
  EXPECT_NE(two.find("(also stored: law chinchilla, the same comparisons with its own law as the check; --detail"),
            std::string::npos) << two;
  std::size_t verdicts = 0;
  for (std::size_t at = two.find("\nverdict:\n"); at != std::string::npos; at = two.find("\nverdict:\n", at + 1)) ++verdicts;
  EXPECT_EQ(verdicts, 1u) << two;
  const std::string both = run_cli(server + " --detail");
  EXPECT_NE(both.find(", law chinchilla, 10 jobs"), std::string::npos) << both;
}


// The tune seed as a check, end to end: a tune stage with a seed of its own (100) and a main stage of three
// seeds, both run to success; the coordinator's refit and `gammalab fit` compare the tune runs at the picked LR
// with the main seeds, and a planted disagreement (baseline at width 64) is named, while the tune runs at the
// other LR are not counted.
TEST(Refitter, TheTuneSeedIsCheckedAgainstTheMainSeedsByTheRefitAndTheCli) {
  quiet_solver_logging();
  InProcessCoordinator coordinator("refitter-tune-seed");
  Store& store = coordinator.store();
  auto stage = [](const std::string& name, const std::vector<double>& lrs, const std::vector<std::uint64_t>& seeds) {
    Sweep sweep;
    sweep.name = name;
    for (const std::string variant : {"baseline", "unified"}) {
      for (int width : {32, 64, 128}) {
        for (double lr : lrs) {
          for (std::uint64_t seed : seeds) {
            SweepJob job;
            job.config.model.d_model = width;
            job.config.scale.variant = variant;
            job.config.optim.lr = lr;
            job.config.seed = seed;
            job.name = variant + "/d" + std::to_string(width) + "/lr" + std::to_string(lr) + "/s" + std::to_string(seed);
            job.config_hash = config_hash(job.config);
            sweep.jobs.push_back(std::move(job));
          }
        }
      }
    }
    return sweep;
  };
  const std::string worker = store.register_worker("host", 1, {}, "");
  // Every run on its variant's law; the main seeds at -0.002, 0, +0.002; the tune seed at the pick 0.001 above
  // the law, but 0.2 above at baseline's width 64; the tune runs at the other LR 0.05 above.
  auto run_all = [&] {
    while (auto lease = store.lease(worker, 60000)) {
      const JobConfig c = job_config_from_json(nlohmann::json::parse(lease->job.config_json));
      const double n = double(job_run_point(c, 0.0, "scale.variant", "").params);
      double loss = (c.scale.variant == "unified" ? 0.97 : 1.0) * (1.7 + 40.0 * std::pow(n, -0.35));
      if (c.seed == 100) {
        loss += c.optim.lr > 0.015 ? 0.05 : (c.scale.variant == "baseline" && c.model.d_model == 64 ? 0.2 : 0.001);
      } else {
        loss += 0.002 * (double(c.seed) - 1.0);
      }
      store.add_metrics(lease->job.id, lease->attempt, {{c.steps, 1000, "val/loss", loss}});
      ASSERT_TRUE(store.finish(worker, lease->job.id, lease->attempt, AttemptEnd::kSucceeded, ""));
    }
  };
  const auto sweep = store.create_sweep(stage("tuned", {0.01, 0.02}, {100}), "", "tuned.yaml", false, true).sweep;
  run_all();
  ASSERT_TRUE(store.add_main_stage(sweep.id, stage("tuned", {0.01}, {0, 1, 2}), "{}"));
  run_all();

  RefitOptions options;
  options.enabled = false;
  options.bootstrap = 0;
  Refitter refitter(store, options);
  ASSERT_EQ(refitter.refit(sweep.id), 1);
  const auto stored = nlohmann::json::parse(store.fits(sweep.id, true).at(0).report_json);
  ASSERT_TRUE(stored.contains("tune_seed")) << stored.dump(2);
  const auto& cells = stored["tune_seed"]["cells"];
  ASSERT_EQ(cells.size(), 6u) << "one tune run at the pick per variant and width";
  for (const auto& cell : cells) {
    EXPECT_EQ(cell["main_runs"], 3);
    EXPECT_EQ(cell["tune_runs"], 1) << "the tune run at the other LR is no seed of this configuration";
    const bool planted = cell["group"] == "baseline" && cell["params"] == cells[1]["params"];
    EXPECT_EQ(cell["disagrees"].get<bool>(), planted) << cell.dump();
  }

  const std::string text =
      run_cli("--server " + coordinator.address() + " fit " + sweep.id + " --refit --bootstrap 0 --detail");
  EXPECT_NE(text.find("tune seed check: the tune stage's runs at the pick against the main seeds"), std::string::npos)
      << text;
  EXPECT_NE(text.find("disagree with the main seeds beyond chance at 1 of 6 configurations (baseline at N="),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("caution: at 1 of 6 configurations the tune stage's seed disagrees"), std::string::npos) << text;
}

}  // namespace
}  // namespace gammalab::testing
