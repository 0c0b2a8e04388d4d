// What a person reads from the CLI: aligned tables (cli/table.h) and the fit report's text (cli/fit_view.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <regex>
#include <sstream>

#include "cli/fit_view.h"
#include "cli/job_family.h"
#include "cli/job_view.h"
#include "cli/table.h"
#include "cli/tune_view.h"
#include "core/scaling/verdict.h"

namespace gammalab::cli {
namespace {

TEST(TextTable, AlignsTextLeftAndNumbersRightWithoutTrailingSpaces) {
  TextTable table({{"name"}, {"loss", TextTable::Align::kRight}});
  table.add_row({"baseline", "3.25"});
  table.add_row({"γ-unified", "12.5"});
  EXPECT_EQ(table.render(),
            "name       loss\n"
            "---------  ----\n"
            "baseline   3.25\n"
            "γ-unified  12.5\n");
  EXPECT_THROW(table.add_row({"a", "b", "c"}), std::invalid_argument);
}

// Two elastic columns share what is over in proportion to what each can give above the least width: the table
// fills the width, a long message gives more than a name, and neither is cut by all of it.
TEST(TextTable, TwoElasticColumnsShareTheCutAndTheTableFillsTheWidth) {
  TextTable table({{"id", TextTable::Align::kRight}, {"name", TextTable::Align::kLeft, 0, true},
                   {"what", TextTable::Align::kLeft, 0, true}});
  const std::string name(30, 'n'), what(90, 'w');
  table.add_row({"1", name, what});
  std::vector<std::string> left_out;
  bool cut = false;
  const std::string out = table.render(80, left_out, cut);
  EXPECT_TRUE(cut);
  const std::string row = out.substr(out.rfind('\n', out.size() - 2) + 1);
  // (2 + 30 + 90 + 4 = 126 wide: 46 over, of which the name gives 46 * 14 / 88 = 8 and the message 46 * 74 / 88
  // = 39, each rounded up: 79 wide.)
  EXPECT_EQ(row, " 1  nnnnnnnnnnn…nnnnnnnnnn  " + std::string(25, 'w') + "…" + std::string(25, 'w') + "\n");
  EXPECT_EQ(row.size() - 1 - 2 * 2, 79u) << "the ellipses are 3 bytes and one column each";
}

// An all-failed sweep is not "finished": the status says how it ended.
TEST(JobView, SweepStatusSaysWhetherAFinishedSweepFailedWhollyOrInPart) {
  auto sweep = [](bool finished, int succeeded, int failed, int cancelled) {
    v1::Sweep s;
    s.set_finished(finished);
    s.set_total_jobs(succeeded + failed + cancelled);
    (*s.mutable_job_counts())["succeeded"] = succeeded;
    (*s.mutable_job_counts())["failed"] = failed;
    (*s.mutable_job_counts())["cancelled"] = cancelled;
    return s;
  };
  EXPECT_EQ(sweep_status(sweep(false, 0, 3, 0)), "active");
  EXPECT_EQ(sweep_status(sweep(true, 4, 0, 0)), "finished");
  EXPECT_EQ(sweep_status(sweep(true, 0, 4, 0)), "failed");
  EXPECT_EQ(sweep_status(sweep(true, 3, 1, 0)), "partly failed");
  EXPECT_EQ(sweep_status(sweep(true, 0, 0, 4)), "cancelled");
  EXPECT_EQ(sweep_status(sweep(true, 2, 0, 2)), "finished");
  EXPECT_NE(sweeps_table({sweep(true, 0, 4, 0)}).find("failed"), std::string::npos);
}

TEST(JobView, WorkersTableJoinsGpusAndJobs) {
  v1::Worker worker;
  worker.set_id("w1");
  worker.set_hostname("node-a");
  worker.set_slots(2);
  worker.add_gpus("0");
  worker.add_gpus("1");
  worker.add_running_job_ids("7");
  worker.add_running_job_ids("9");
  worker.set_alive(true);
  const std::string text = workers_table({worker}, 0);
  EXPECT_NE(text.find("0,1"), std::string::npos) << text;
  EXPECT_NE(text.find("7,9"), std::string::npos) << text;
  EXPECT_NE(text.find("alive"), std::string::npos) << text;
}

// A worker paused for a fault its environment may cause says so, for how long and why; a pause that has passed
// is no pause.
TEST(JobView, WorkersTableSaysWhichWorkerIsPausedForHowLongAndWhy) {
  v1::Worker worker;
  worker.set_id("3");
  worker.set_hostname("node-b");
  worker.set_slots(1);
  worker.set_alive(true);
  worker.mutable_paused_until()->set_seconds(1000);
  worker.set_pause_reason("code 66 (a data error: the job's data cannot be opened on this worker)");
  const std::string paused = workers_table({worker}, 958'500);
  EXPECT_NE(paused.find("paused"), std::string::npos) << paused;
  EXPECT_NE(paused.find("worker 3 is paused for 42 s more (leased nothing): code 66 (a data error: the job's data "
                        "cannot be opened on this worker)"),
            std::string::npos)
      << paused;
  const std::string later = workers_table({worker}, 1'000'000);
  EXPECT_EQ(later.find("paused"), std::string::npos) << later;
  EXPECT_NE(later.find("alive"), std::string::npos) << later;
}

TEST(JobView, JobsTableShowsEachJobsSlotsAndWhyAPendingJobWaits) {
  v1::Job waiting;
  waiting.set_id("7");
  waiting.set_name("s/two");
  waiting.set_state(v1::JOB_STATE_PENDING);
  waiting.set_slots_per_node(2);
  waiting.set_pending_reason("needs 2 slots of one worker\x1b[2J");
  v1::Job old;  // from a coordinator that sends no size: one slot
  old.set_id("8");
  old.set_name("s/one");
  old.set_state(v1::JOB_STATE_RUNNING);
  const std::string text = jobs_table({waiting, old});
  EXPECT_NE(text.find("SLOTS"), std::string::npos) << text;
  EXPECT_NE(text.find("pending      2"), std::string::npos) << text;
  EXPECT_NE(text.find("running      1"), std::string::npos) << text;
  EXPECT_NE(text.find("\njob 7 waits: needs 2 slots of one worker[2J\n"), std::string::npos)
      << "under the table, without the server's control characters:\n" << text;
  EXPECT_EQ(text.find("job 8 waits"), std::string::npos) << text;
}

// `jobs` names workers as the dashboard does (their hostnames), and tells two workers of one machine apart.
TEST(JobView, JobsTableNamesWorkersByHostnameAndSeparatesWorkersOfOneHost) {
  std::vector<v1::Worker> workers(4);
  workers[0].set_id("3");
  workers[0].set_hostname("gpu-a");
  workers[1].set_id("4");
  workers[1].set_hostname("gpu-b");
  workers[2].set_id("5");
  workers[2].set_hostname("gpu-b");
  workers[3].set_id("6");  // registered without a hostname
  const WorkerNames names = worker_names(workers);
  EXPECT_EQ(names.at("3"), "gpu-a");
  EXPECT_EQ(names.at("4"), "gpu-b#4");
  EXPECT_EQ(names.at("5"), "gpu-b#5");
  EXPECT_EQ(names.at("6"), "worker 6");
  std::vector<v1::Job> jobs(3);
  jobs[0].set_id("1");
  jobs[0].set_state(v1::JOB_STATE_RUNNING);
  jobs[0].set_worker_id("3");
  jobs[1].set_id("2");
  jobs[1].set_state(v1::JOB_STATE_RUNNING);
  jobs[1].set_worker_id("9");  // a worker since removed: its id, not a blank
  jobs[2].set_id("10");
  jobs[2].set_state(v1::JOB_STATE_PENDING);
  const std::string text = jobs_table(jobs, names);
  std::istringstream lines(text);
  std::string header, rule, first, second, third;
  std::getline(lines, header);
  std::getline(lines, rule);
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  EXPECT_TRUE(first.ends_with("  gpu-a")) << text;
  EXPECT_TRUE(second.ends_with("  9")) << text;
  EXPECT_TRUE(third.ends_with("  -")) << text;
}

// On a surface (a size with final losses at several budgets: cooldown branches) the report says which losses
// were fitted: the annealed ends, never a stable phase's evaluations. Along one line of budgets it says nothing.
TEST(FitView, ASurfaceSaysTheFitsUseAnnealedLossesOnly) {
  FitReport report;
  report.law = LawKind::chinchilla;
  GroupFit group;
  group.group = "baseline";
  group.sizes = {{.params = 1e4, .tokens = 2e5, .runs = 2}, {.params = 2e4, .tokens = 4e5, .runs = 2}};
  report.groups.push_back(group);
  EXPECT_EQ(fit_report_text(report).find("annealed"), std::string::npos) << fit_report_text(report);
  report.groups[0].sizes.push_back({.params = 1e4, .tokens = 1e5, .runs = 2});
  const std::string text = fit_report_text(report);
  EXPECT_NE(text.find("points: each run's final loss, at every (N, D) a size ran (in a sweep with cooldown branches, "
                      "each branch's after its decay, annealed; a run's evaluations during its stable phase are not "
                      "fitted"),
            std::string::npos)
      << text;
}

TEST(FitView, ShowsEachGroupItsParametersAndTheMultiplier) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  FitReport report;
  report.law = LawKind::c;
  report.bootstrap_requested = 20;
  report.bootstrap_used = 19;
  report.seed = 9;
  report.baseline = "baseline";
  GroupFit group;
  group.group = "baseline";
  group.runs = 8;
  group.model_sizes = 4;
  group.parameters = {{"E", 1.75, 1.5, 2.0}, {"alpha", 0.3125, nan, nan}};
  report.groups.push_back(group);
  Multiplier multiplier;
  multiplier.variant = "unified";
  multiplier.baseline = "baseline";
  multiplier.at_budgets.push_back({1e19, {"", 1.25, 1.125, 1.5}});
  report.multipliers.push_back(multiplier);
  const std::string text = fit_report_text(report);
  EXPECT_NE(text.find("law c, 19/20 bootstrap resamples (seed 9)"), std::string::npos) << text;
  EXPECT_NE(text.find("group baseline: 8 runs, 4 model sizes"), std::string::npos) << text;
  EXPECT_NE(text.find("  E            1.75  [1.5, 2]\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  alpha      0.3125  unbounded: add sizes or seeds\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("nan"), std::string::npos) << "an interval without bounds is said in words: " << text;
  EXPECT_NE(text.find("compute multiplier unified over baseline"), std::string::npos) << text;
  EXPECT_NE(text.find("  C=1e+19   1.25  [1.125, 1.5]"), std::string::npos) << text;
  EXPECT_NE(text.find("unified reaches baseline's loss with 1.25× less compute [1.12, 1.50] (law c"), std::string::npos)
      << text;
}

// The law-free comparison comes first and is what the verdict quotes first; what the law fit does not
// identify is said in words: a parameter at bound, the profile's range, a holdout miss above the effect.
TEST(FitView, ShowsPairedGapsLocalMultiplierAndWhatTheLawDoesNotIdentify) {
  FitReport report;
  report.law = LawKind::c;
  report.bootstrap_requested = report.bootstrap_used = 100;
  report.bootstrap_unit = kResamplePairedSeeds;
  GroupFit group;
  group.group = "baseline";
  group.model_sizes = 5;
  Estimate e{"E", 4.6e-11, NAN, NAN};
  e.at_bound = true;
  group.parameters = {e};
  report.groups.push_back(group);
  Comparison c;
  c.variant = "unified";
  c.baseline = "baseline";
  c.paired = c.ladder = true;
  SizeComparison s;
  s.params = 1e6;
  s.tokens = 2e7;
  s.pairs = 3;
  s.paired_mean = -0.0228;
  s.paired_standard_error = 0.0035;
  s.complete = s.inside = true;
  s.gap = {"gap", -0.0228, -0.03, -0.015};
  s.local = {"m_local", 1.31, 1.2, 1.45};
  c.sizes = {s};
  c.sizes_inside = c.sizes_pooled = 1;
  c.fewest_seeds = 3;
  c.degrees_of_freedom = 2;
  c.local = {"m_local", 1.31, 1.2, 1.45};
  c.local_unweighted = c.local;
  c.jackknife = Jackknife{5, 1.25, 1.38, 0.03};
  c.relative_effect = 0.01;
  c.holdout_error = 0.114;
  report.comparisons.push_back(c);
  Multiplier m;
  m.variant = "unified";
  m.baseline = "baseline";
  m.constant = Estimate{"m", 1.39, 1.1, 1.9};
  m.profile = ProfileRange{1.26, 1.68, false, false, 1e-4};
  report.multipliers.push_back(m);
  const std::string text = fit_report_text(report);
  EXPECT_NE(text.find("unified − baseline by size (paired: runs sharing a seed)"), std::string::npos) << text;
  EXPECT_NE(text.find("-0.0228 ± 0.0035"), std::string::npos) << text;
  EXPECT_NE(text.find("not identified (at bound)"), std::string::npos) << text;
  EXPECT_NE(text.find("unified reaches baseline's loss with 1.31× less compute [1.20, 1.45] at the sizes measured\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("local multiplier, no law: m_local pooled with precision weights over 1 size both ran; 95% paired "
                      "bootstrap over seeds, 100 resamples, 3 seeds per size, t with 2 df"),
            std::string::npos) << text;
  EXPECT_NE(text.find("1.25–1.38 leaving one size out"), std::string::npos) << text;
  EXPECT_NE(text.find("the fit's objective allows 1.26 to 1.68"), std::string::npos) << text;
  EXPECT_NE(text.find("miss the largest size's mean loss by up to 11.4%"), std::string::npos) << text;
  EXPECT_LT(text.find("at the sizes measured"), text.find("check, unified reaches baseline's loss with 1.39×"))
      << "the law-free figure is the headline, the law's its check";
  m.profile->open_hi = true;
  report.multipliers[0] = m;
  EXPECT_NE(fit_report_text(report).find("the law does not identify it"), std::string::npos);
  // A variant behind its reference (here the control qknorm): the interval and the jackknife both in "more".
  Comparison behind = c;
  behind.baseline = "qknorm";
  behind.local = {"m_local", 0.8, 0.5, 1.0};
  behind.jackknife = Jackknife{3, 0.625, 1.25, 0.1};
  report.comparisons.push_back(behind);
  const std::string both = fit_verdict_text(report);
  EXPECT_NE(both.find("unified needs 1.25× more compute than qknorm [1.00, 2.00] at the sizes measured"),
            std::string::npos) << both;
  EXPECT_NE(both.find("0.80–1.60 leaving one size out"), std::string::npos) << both;
}

// One headline per comparison: when the law's interval and the local one disagree the verdict says "not settled"
// and why, quoting both; an interval resting on fewer than two degrees of freedom is not printed as 95%; a trend
// with size that is resolved moves the headline to the largest size.
TEST(FitView, TheVerdictSaysNotSettledTooFewSeedsAndAChangeWithScale) {
  FitReport report;
  report.law = LawKind::c;
  report.bootstrap_requested = report.bootstrap_used = 200;
  report.bootstrap_unit = kResamplePairedSeeds;
  Comparison c;
  c.variant = "unified";
  c.baseline = "baseline";
  c.paired = c.ladder = true;
  c.sizes_pooled = 3;
  c.fewest_seeds = 3;
  c.degrees_of_freedom = 6;
  c.local = {"m_local", 1.4, 1.15, 1.7};
  c.local_unweighted = {"m_local unweighted", 1.5, 1.2, 1.9};
  c.trend = {"trend", -0.05, -0.2, 0.1};
  c.holdout_error = NAN;
  report.comparisons.push_back(c);
  Multiplier m;
  m.variant = "unified";
  m.baseline = "baseline";
  m.constant = Estimate{"m", 1.1, 0.9, 1.3};
  report.multipliers.push_back(m);
  std::string text = fit_verdict_text(report);
  EXPECT_EQ(text.find("not settled: the local multiplier's interval excludes 1× and the law's does not: unified reaches "
                      "baseline's loss with 1.40× less compute [1.15, 1.70] at the sizes measured by the local "
                      "multiplier; unified reaches baseline's loss with 1.10× less compute [0.90, 1.30] by the law\n"),
            0u) << text;
  EXPECT_NE(text.find("check, unified reaches baseline's loss with 1.10× less compute [0.90, 1.30] (law c"),
            std::string::npos) << text;
  EXPECT_NE(text.find(": disagrees\n"), std::string::npos) << text;
  const auto verdicts = comparison_verdicts(report);
  ASSERT_EQ(verdicts.size(), 1u) << "one headline per comparison, the law's multiplier is its check";
  EXPECT_FALSE(verdicts[0].settled);
  EXPECT_EQ(verdicts[0].estimator, kEstimatorLocal);

  // Two seeds at one size: one degree of freedom, no interval printed as if it were 95%.
  report.multipliers.clear();
  report.comparisons[0].sizes_pooled = 1;
  report.comparisons[0].fewest_seeds = 2;
  report.comparisons[0].degrees_of_freedom = 1;
  text = fit_verdict_text(report);
  EXPECT_EQ(text.find("unified reaches baseline's loss with 1.40× less compute (too few seeds to bound) at the sizes "
                      "measured\n"),
            0u) << text;
  EXPECT_NE(text.find("2 seeds per size, t with 1 df (no interval per size: each rests on 1 df)"), std::string::npos)
      << text;

  // A resolved trend: the multiplier changes with scale, and the headline is the largest size's.
  report.comparisons[0].sizes_pooled = 4;
  report.comparisons[0].fewest_seeds = 3;
  report.comparisons[0].degrees_of_freedom = 8;
  report.comparisons[0].trend = {"trend", -0.3, -0.5, -0.1};
  report.comparisons[0].at_largest = {"at largest", 1.2, 1.05, 1.4};
  report.comparisons[0].largest_degrees_of_freedom = 2;
  text = fit_verdict_text(report);
  EXPECT_EQ(text.find("unified reaches baseline's loss with 1.20× less compute [1.05, 1.40] at the largest size "
                      "measured, where it changes with scale\n"),
            0u) << text;
  EXPECT_NE(text.find("[-0.5, -0.1]: the multiplier changes with scale"), std::string::npos) << text;
}

TEST(FitView, KeepsEscapeSequencesInGroupNamesOffTheTerminal) {
  FitReport report;
  GroupFit group;
  group.group = "evil\x1b]0;owned\x07\x1b[2J";
  report.groups.push_back(group);
  const std::string text = fit_report_text(report);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  EXPECT_NE(text.find("group evil]0;owned[2J"), std::string::npos) << text;
}

TEST(TuneView, ListsEveryValueTriedPerGroupAndMarksThePick) {
  TunePicks picks;
  TuneGroup ok{{{"scale.variant", "baseline"}}, {}, 1, ""};
  ok.trials.push_back({{{"optim.lr", 0.001}}, 2, 0, 3.25, {}, {}, ""});
  ok.trials.push_back({{{"optim.lr", 0.002}}, 2, 0, 3.125, {}, {}, ""});
  ok.trials.push_back({{{"optim.lr", 0.004}}, 2, 1, std::numeric_limits<double>::infinity(), {}, {}, ""});
  TuneGroup edge{{{"scale.variant", "unified"}}, {}, -1, "the best optim.lr (0.004) is the largest value of the grid"};
  edge.trials.push_back({{{"optim.lr", 0.004}}, 2, 0, 3.0, {}, {}, ""});
  picks.groups = {ok, edge};
  const std::string text = tune_picks_text(picks);
  EXPECT_NE(text.find("group scale.variant=baseline\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  0.002                2           3.1250  <- pick\n"), std::string::npos) << text;
  EXPECT_NE(text.find("2 (1 failed)           failed"), std::string::npos) << text;
  EXPECT_NE(text.find("no pick: the best optim.lr (0.004) is the largest value of the grid"), std::string::npos)
      << text;
  // Kept under allow_edge, a pick at the grid's edge says so.
  TuneGroup kept{{{"scale.variant", "none"}}, {}, 0, ""};
  kept.trials.push_back({{{"optim.lr", 0.001}}, 1, 0, 3.0, {}, {}, ""});
  kept.trials.push_back({{{"optim.lr", 0.002}}, 1, 0, 3.1, {}, {}, ""});
  picks.groups = {ok, kept};
  const std::string marked = tune_picks_text(picks);
  EXPECT_NE(marked.find("3.0000  <- pick, at an edge of the grid (allow_edge)"), std::string::npos) << marked;
  EXPECT_NE(marked.find("3.1250  <- pick\n"), std::string::npos) << marked;
  // How sure a pick is, from the resamples of its tune seeds; with one seed, that it is not measured.
  ok.seeds = 3;
  ok.pick_share = 0.62;
  kept.seeds = 1;
  picks.groups = {ok, kept};
  const std::string sure = tune_picks_text(picks);
  EXPECT_NE(sure.find("  the pick holds in 62% of 1000 resamples of its 3 tune seeds: the values are not told apart "
                      "by these seeds; add tune seeds\n"),
            std::string::npos)
      << sure;
  EXPECT_NE(sure.find("  one tune seed: how sure the pick is is not measured (tune.seeds: 2 or more)\n"),
            std::string::npos)
      << sure;
  // Values the coordinator added (tune.extend, tune.refine) say so, the pick among them too.
  TuneGroup rounds{{{"scale.variant", "qknorm"}}, {}, 1, ""};
  rounds.trials.push_back({{{"optim.lr", 0.002}}, 2, 0, 3.2, {}, {}, ""});
  rounds.trials.push_back({{{"optim.lr", 0.00282843}}, 2, 0, 3.1, {}, {}, "refined"});
  rounds.trials.push_back({{{"optim.lr", 0.008}}, 2, 0, 3.3, {}, {}, "extended"});
  picks.groups = {rounds};
  const std::string added = tune_picks_text(picks);
  EXPECT_NE(added.find("  0.00282843     2           3.1000  <- pick (refined)\n"), std::string::npos) << added;
  EXPECT_NE(added.find("3.3000  extended\n"), std::string::npos) << added;
  // tune.size_rule: the fit, its slope's interval, each size's best beside the rule's value.
  picks.rules = {fit_tune_rule({{"scale.variant", "qknorm"}}, "optim.lr",
                               {{{{"model.preset", "a"}}, 1.44e4, std::log(0.05), false},
                                {{{"model.preset", "b"}}, 3.0e4, std::log(0.03), false},
                                {{{"model.preset", "c"}}, 8.9e4, std::log(0.02), true}})};
  const std::string ruled = tune_picks_text(picks);
  EXPECT_NE(ruled.find("size rule scale.variant=qknorm: log optim.lr = "), std::string::npos) << ruled;
  EXPECT_NE(ruled.find("(95%, 1 df); the sizes' best values scatter about it by x"), std::string::npos) << ruled;
  EXPECT_NE(ruled.find("  14.4k  0.05            0.04729\n"), std::string::npos) << ruled;
  EXPECT_NE(ruled.find("pick at an edge of its grid"), std::string::npos) << ruled;
  picks.rules = {fit_tune_rule({{"scale.variant", "qknorm"}}, "optim.lr", {})};
  EXPECT_NE(tune_picks_text(picks).find("size rule scale.variant=qknorm: none: tune.size_rule needs picks at 3 or "
                                        "more sizes; this family has 0"),
            std::string::npos);
}


// A WSD run and its cooldown branches (docs/branches.md): job ids in sweep order, `parent` the run's id or "".
v1::Job family_job(const std::string& id, const std::string& name, const std::string& parent, v1::JobState state) {
  v1::Job j;
  j.set_id(id);
  j.set_name(name);
  j.set_parent_id(parent);
  j.set_state(state);
  return j;
}

TEST(JobFamily, ARunsBranchesFollowItAsATreeNamedByWhatTheyAdd) {
  // Listed out of order (a second page, a filter): the branches still follow their run, in the order given.
  const std::vector<v1::Job> jobs = {
      family_job("2", "w/s/a/D=100", "1", v1::JOB_STATE_SUCCEEDED), family_job("1", "w/s/a", "", v1::JOB_STATE_RUNNING),
      family_job("4", "w/s/b", "", v1::JOB_STATE_PENDING), family_job("3", "w/s/a/D=200", "1", v1::JOB_STATE_PENDING),
      family_job("5", "other-name", "4", v1::JOB_STATE_PENDING),  // a name that does not extend its run's
      family_job("6", "orphan/D=1", "99", v1::JOB_STATE_PENDING)};  // its run not in the list
  const std::string text = jobs_table(jobs);
  EXPECT_TRUE(std::regex_search(text, std::regex("\n +1 +w/s/a +running"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\n +2 +├─ D=100 +succeeded"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\n +3 +└─ D=200 +pending"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\n +4 +w/s/b +pending"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\n +5 +└─ other-name"))) << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("\n +6 +orphan/D=1"))) << text;
  EXPECT_LT(text.find(" 3  "), text.find(" 4  ")) << text;

  // Ranked (watch: running first), a family goes where its most urgent member would, whole.
  std::vector<std::size_t> order;
  for (const auto& row : family_rows(jobs, [](const v1::Job& j) { return j.state() == v1::JOB_STATE_RUNNING ? 0 : 1; })) {
    order.push_back(row.index);
  }
  EXPECT_EQ(order, (std::vector<std::size_t>{1, 0, 3, 2, 4, 5}));
}

// In a terminal 80 columns wide the jobs table keeps to 80: the columns a glance needs least go first, then the
// long names are cut in the middle (their stage and size, and their variant and seed, stay); a line says so.
// Piped (width 0) it is whole.
TEST(JobsTable, FitsANarrowTerminalSayingWhatItLeftOut) {
  std::vector<v1::Job> jobs;
  for (int i = 1; i <= 3; ++i) {
    v1::Job j = family_job(std::to_string(i), "tune/tiny-2x16/baseline/adamw/cosine/lr=" + std::to_string(i) +
                                                  ".0_model.d_model/s100",
                           "", v1::JOB_STATE_RUNNING);
    j.set_step(70);
    j.set_total_steps(140);
    j.set_tokens(143360);
    j.set_has_loss(true);
    j.set_last_loss(2.3356);
    j.set_tokens_per_s(140400);
    j.set_worker_id("7");
    jobs.push_back(j);
  }
  const WorkerNames names{{"7", "demo-worker-1"}};
  const std::string whole = jobs_table(jobs, names);
  EXPECT_NE(whole.find("tune/tiny-2x16/baseline/adamw/cosine/lr=1.0_model.d_model/s100"), std::string::npos) << whole;
  EXPECT_EQ(whole.find("left out"), std::string::npos) << whole;
  const std::string narrow = jobs_table(jobs, names, 80);
  std::istringstream lines(narrow);
  for (std::string line; std::getline(lines, line);) EXPECT_LE(display_width(line), 80u) << narrow;
  for (const char* kept : {"ID", "NAME", "STATE", "STEP", "LOSS", "running", "70/140", "2.3356"}) {
    EXPECT_NE(narrow.find(kept), std::string::npos) << kept << "\n" << narrow;
  }
  EXPECT_EQ(narrow.substr(0, narrow.find("(fitted")).find("TOK/S"), std::string::npos) << narrow;
  EXPECT_NE(narrow.find("(fitted to 80 columns: TOK/S, TOKENS, WORKER, SLOTS, ATTEMPT left out"), std::string::npos)
      << narrow;
  // Each row's name is cut in the middle and still told apart from the others by its end.
  for (int i = 1; i <= 3; ++i) {
    EXPECT_TRUE(std::regex_search(narrow, std::regex("\n +" + std::to_string(i) + " +tune/tiny-2x16/.*….*lr=" +
                                                     std::to_string(i) + "\\.0_model\\.d_model/s100 +running")))
        << narrow;
  }
  // Wide enough for everything but the names: only columns go, nothing is cut.
  const std::string roomy = jobs_table(jobs, names, 120);
  EXPECT_EQ(roomy.find("names cut"), std::string::npos) << roomy;
  EXPECT_NE(roomy.find("lr=1.0_model.d_model/s100"), std::string::npos) << roomy;
}

TEST(JobFamily, LinksThatAreNoTreeLeaveEveryJobListedOnce) {
  const std::vector<v1::Job> jobs = {family_job("1", "a", "2", v1::JOB_STATE_PENDING),
                                     family_job("2", "b", "1", v1::JOB_STATE_PENDING),
                                     family_job("3", "c", "3", v1::JOB_STATE_PENDING),  // its own run
                                     family_job("4", "d", "1", v1::JOB_STATE_PENDING)};
  std::vector<std::size_t> order;
  for (const auto& row : family_rows(jobs)) order.push_back(row.index);
  std::sort(order.begin(), order.end());
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace gammalab::cli
