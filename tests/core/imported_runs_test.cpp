// Runs trained elsewhere (core/scaling/imported_runs.h): a CSV of final losses and JSON lines of whole curves
// become runs whose configs declare the N, D, group and seed the fits read, each with where it came from; every
// malformed file is refused naming the line and the field, and a sweep file cannot pose as an import.
#include <gtest/gtest.h>

#include <limits>

#include "core/job_config.h"
#include "core/param_count.h"
#include "core/scaling/imported_runs.h"
#include "core/scaling/run_point.h"
#include "sweep_test_support.h"

namespace gammalab::testing {
namespace {

// The message of what `f` throws (std::invalid_argument), or a failure when it throws nothing.
template <typename F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  ADD_FAILURE() << "nothing refused";
  return "";
}

TEST(ImportedRuns, ACsvOfFinalLossesBecomesOneFinishedRunPerRowThatTheFitsReadAsGiven) {
  const auto runs = imported_runs_from_csv(
      "params,tokens,loss,group,seed,label\n"
      "1e7,2e8,3.10,baseline,0,\n"
      "1e7,2e8,3.02,unified,0,u-small\n"
      "1e8,2e9,2.80,qknorm,1,\n",
      "runs.csv");
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[0].name, "baseline/N=10000000/D=200000000/s0");
  EXPECT_EQ(runs[1].name, "u-small");
  EXPECT_EQ(runs[2].config.scale.variant, "qknorm");
  EXPECT_TRUE(runs[2].config.model.qk_norm) << "the variant's name asks it";
  EXPECT_EQ(runs[0].config.imported, "runs.csv row 1");
  EXPECT_EQ(runs[2].config.seed, 1u);
  ASSERT_EQ(runs[1].points.size(), 1u);
  EXPECT_EQ(runs[1].points[0], (MetricPoint{1, 200000000, "val/loss", 3.02}));
  // What a fit of the sweep reads of the job: the file's N, D and loss, 6 N D as its compute.
  const RunPoint point = job_run_point(runs[1].config, runs[1].points[0].value, "scale.variant", runs[1].name);
  EXPECT_EQ(point.params, 1e7);
  EXPECT_EQ(point.tokens, 2e8);
  EXPECT_EQ(point.compute, 6 * 1e7 * 2e8);
  EXPECT_EQ(point.group, "unified");
  EXPECT_EQ(point.seed, 0u);
  EXPECT_EQ(final_loss(runs[1].points, runs[1].config.steps), 3.02);
}

TEST(ImportedRuns, ACsvWithoutSeedsOrWithAnotherComputeIsRefused) {
  EXPECT_NE(refusal([] { imported_runs_from_csv("params,tokens,loss,group\n1e7,2e8,3.1,baseline\n", "a.csv"); })
                .find("a.csv: row 1: no seed; an imported run needs its seed"),
            std::string::npos);
  const std::string compute = refusal(
      [] { imported_runs_from_csv("params,tokens,loss,group,seed,compute\n1e7,2e8,3.1,b,0,5e15\n", "c.csv"); });
  EXPECT_NE(compute.find("c.csv: row 1: column 'compute': 5e+15 is not 6 N D = 1.2e+16"), std::string::npos)
      << compute;
  // The fit's own checks of a CSV hold too: a negative loss names its line and column.
  EXPECT_NE(refusal([] { imported_runs_from_csv("params,tokens,loss,seed\n1e7,2e8,-3,0\n", "d.csv"); })
                .find("d.csv:2"),
            std::string::npos);
}

TEST(ImportedRuns, JsonLinesCarryWholeCurvesTheirConfigAndWhereTheyCameFrom) {
  const auto runs = imported_runs_from_jsonl(
      R"({"run": {"name": "b0", "group": "baseline", "seed": 0, "params": 5e6, "source": "tensorboard logs/b0", "config": {"optim": {"lr": 0.003}}}}
{"step": 10, "tokens": 40960, "metrics": {"train/loss": 5.0}}
{"step": 20, "tokens": 81920, "metrics": {"train/loss": 4.0, "val/loss": 4.2}}

{"run": {"group": "unified", "seed": 0, "params": 5e6, "tokens": 1e5}}
{"step": 5, "metrics": {"val/loss": 4.1}}
)",
      "runs.jsonl");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].name, "b0");
  EXPECT_EQ(runs[0].config.imported, "tensorboard logs/b0");
  EXPECT_EQ(runs[0].config.optim.lr, 0.003);
  EXPECT_EQ(runs[0].config.steps, 20);
  EXPECT_EQ(runs[0].config.declared_tokens, 81920.0) << "D: the last point's tokens";
  ASSERT_EQ(runs[0].points.size(), 3u);
  EXPECT_EQ(runs[0].points[2], (MetricPoint{20, 81920, "val/loss", 4.2})) << "each metric's points by step";
  EXPECT_EQ(final_loss({runs[0].points[2]}, runs[0].config.steps), 4.2) << "the val/loss at the last step";
  EXPECT_EQ(runs[1].name, "unified/s0");
  EXPECT_EQ(runs[1].config.imported, "runs.jsonl line 5");
  EXPECT_EQ(runs[1].config.declared_tokens, 1e5);
  EXPECT_EQ(job_fitted_tokens(runs[1].config), 1e5);
}

TEST(ImportedRuns, EveryMalformedLineIsRefusedNamingItsLineAndField) {
  const std::string run = R"({"run": {"seed": 0, "params": 1e6, "tokens": 1e7}})";
  const auto refused = [](const std::string& text) {
    return refusal([&] { imported_runs_from_jsonl(text, "r.jsonl"); });
  };
  EXPECT_NE(refused(R"({"step": 1, "metrics": {"val/loss": 1}})").find("r.jsonl:1: a metric line before the first run"),
            std::string::npos);
  EXPECT_NE(refused("").find("r.jsonl: no run line"), std::string::npos);
  EXPECT_NE(refused(R"({"run": {"seed": 0, "params": 1e6, "colour": "red"}})").find("r.jsonl:1: run.colour: not a field"),
            std::string::npos);
  EXPECT_NE(refused(R"({"run": {"params": 1e6, "tokens": 1e7}})").find("r.jsonl:1: run.seed is required"),
            std::string::npos);
  EXPECT_NE(refused(R"({"run": {"seed": 0, "tokens": 1e7}})").find("r.jsonl:1: run.params is required"),
            std::string::npos);
  EXPECT_NE(refused(R"({"run": {"seed": 0, "params": 1e6}})" "\n" R"({"step": 3, "metrics": {"val/loss": 2}})")
                .find("run.tokens is required when the metric lines carry no tokens"),
            std::string::npos);
  EXPECT_NE(refused(run + "\nnot json").find("r.jsonl:2: neither a run line"), std::string::npos);
  EXPECT_NE(refused(run + "\n" + R"({"step": 2, "metrics": {"val/loss": "nan"}})").find("val/loss"), std::string::npos);
  EXPECT_NE(refused(run + "\n" + R"({"step": 2, "metrics": {"made/up": 1}})").find("made/up"), std::string::npos);
  const std::string twice = refused(run + "\n" + R"({"step": 2, "metrics": {"val/loss": 1.5}})" + "\n" +
                                    R"({"step": 2, "metrics": {"val/loss": 1.4}})");
  EXPECT_NE(twice.find("val/loss twice at step 2 (1.5 and 1.4)"), std::string::npos) << twice;
  EXPECT_NE(refused(R"({"run": {"seed": 0, "params": -5, "tokens": 1e7}})").find("declared_params"),
            std::string::npos);
  EXPECT_NE(refused(R"({"run": {"seed": 0, "params": 1e6, "tokens": 1e7, "config": {"optim": {"lr": -1}}}})")
                .find("optim.lr"),
            std::string::npos);
  EXPECT_NE(refused(R"({"run": {"seed": 0, "params": 1e6, "tokens": 1e7, "config": {"command": ["sh"]}}})")
                .find("imported"),
            std::string::npos);
}

TEST(ImportedRuns, TwoRunsOfOneNameAreRefused) {
  const std::string twice = refusal([] {
    imported_runs_from_csv("params,tokens,loss,group,seed\n1e7,2e8,3.1,b,0\n1e7,2e8,3.0,b,0\n", "dup.csv");
  });
  EXPECT_NE(twice.find("dup.csv: run 'b/N=10000000/D=200000000/s0': the name of runs 1 and 2"), std::string::npos)
      << twice;
  EXPECT_NE(refusal([] {
              imported_runs_from_jsonl(R"({"run": {"name": "a", "seed": 0, "params": 1e6, "tokens": 1e7}}
{"run": {"name": "a", "seed": 1, "params": 1e6, "tokens": 1e7}})",
                                       "dup.jsonl");
            }).find("dup.jsonl: run 'a': the name of runs 1 and 2"),
            std::string::npos);
}

TEST(ImportedRuns, ARunChecksItsOwnNameAndProvenance) {
  auto runs = imported_runs_from_csv("params,tokens,loss,seed\n1e7,2e8,3.1,0\n", "a.csv");
  ImportedRun run = runs[0];
  run.config.imported.reset();
  EXPECT_NE(refusal([&] { check_imported_run(run); }).find("imported: where the run came from is not set"),
            std::string::npos);
  run = runs[0];
  run.name = std::string(300, 'x');
  EXPECT_NE(refusal([&] { check_imported_run(run); }).find("a name must be 1 to 256 bytes"), std::string::npos);
  run = runs[0];
  run.points[0].step = 2;
  EXPECT_NE(refusal([&] { check_imported_run(run); }).find("val/loss at step 2: outside [0, 1]"), std::string::npos);
}

TEST(ImportedRuns, ASweepFileCannotSetImported) {
  const auto found = problems(R"(
name: pose
base:
  imported: elsewhere
)");
  ASSERT_FALSE(found.empty());
  EXPECT_NE(found[0].message.find("is set by `gammalab import`"), std::string::npos) << found[0].message;
}

}  // namespace
}  // namespace gammalab::testing
