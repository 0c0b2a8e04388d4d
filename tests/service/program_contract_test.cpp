// The contract a command job's program is held to (worker/program_contract.h), line by line: a resume's replay
// is dropped, not stored twice; a hole, a step going back, a metric given twice, a step past the job, a bare
// NaN or a cut line is a breach that names the rule and the step; exit 0 counts only once the last step showed.
// And the reader under it never holds more than one bounded line of a child that prints without newlines.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "core/metric.h"
#include "core/metric_names.h"
#include "worker/child_process.h"
#include "worker/program_contract.h"

namespace gammalab {
namespace {

std::string line(std::int64_t step, const std::map<std::string, double>& values) {
  return format_metric_line(step, step * 10, values);
}

std::vector<std::int64_t> steps_of(const std::vector<MetricPoint>& points) {
  std::vector<std::int64_t> out;
  for (const auto& p : points) out.push_back(p.step);
  return out;
}

TEST(ProgramContract, AFirstAttemptRelaysEveryLineAndSucceedsAtItsLastStep) {
  ProgramContract contract({}, /*steps=*/20, /*log_every=*/5);
  EXPECT_TRUE(contract.admit("starting up", false).empty()) << "not a metric line: the log's";
  for (std::int64_t step = 5; step <= 20; step += 5) {
    EXPECT_EQ(contract.admit(line(step, {{"train/loss", 1.0}}), false).size(), 1u) << step;
    EXPECT_EQ(contract.unfinished().empty(), step == 20) << step;
  }
  EXPECT_EQ(contract.admit(line(20, {{"val/loss", 1.0}}), false).size(), 1u) << "another metric at the same step";
  EXPECT_EQ(contract.breach(), "");
}

TEST(ProgramContract, AResumeReplaysFromItsCheckpointAndOnlyWhatIsNotStoredIsRelayed) {
  // Stored through step 30, train/loss there but not val/loss; the program resumes from its checkpoint at 20.
  ProgramContract contract({30, {"train/loss"}}, 100, 5);
  EXPECT_EQ(contract.stored_through_step(), 30);
  EXPECT_TRUE(contract.admit(line(25, {{"train/loss", 1.0}}), false).empty());
  const auto at_30 = contract.admit(line(30, {{"train/loss", 1.0}, {"val/loss", 2.0}}), false);
  ASSERT_EQ(at_30.size(), 1u);
  EXPECT_EQ(at_30[0].name, "val/loss");
  EXPECT_EQ(steps_of(contract.admit(line(35, {{"train/loss", 1.0}}), false)), std::vector<std::int64_t>{35});
  EXPECT_EQ(contract.breach(), "");
}

TEST(ProgramContract, AResumeFromACheckpointNewerThanWhatIsStoredIsAHole) {
  ProgramContract contract({30, {"train/loss"}}, 100, 5);
  EXPECT_TRUE(contract.admit(line(45, {{"train/loss", 1.0}}), false).empty());
  EXPECT_EQ(contract.breach(),
            "no metric line between step 30 and step 45, more than log_every = 5 apart: a hole in the curve (a resume "
            "must start from a checkpoint at or before GAMMALAB_STORED_THROUGH_STEP = 30)");
}

TEST(ProgramContract, EachRuleBrokenIsNamedWithItsStep) {
  const auto breach_of = [](const std::vector<std::string>& lines, bool cut_last = false) {
    ProgramContract contract({}, 100, 5);
    for (std::size_t i = 0; i < lines.size(); ++i) contract.admit(lines[i], cut_last && i + 1 == lines.size());
    return contract.breach();
  };
  EXPECT_EQ(breach_of({line(5, {{"lr", 1}}), line(10, {{"lr", 1}}), line(5, {{"lr", 1}})}),
            "step 5 after step 10: the steps of a run's lines go back");
  EXPECT_EQ(breach_of({line(5, {{"lr", 1}}), line(5, {{"lr", 2}})}), "metric 'lr' given twice at step 5");
  EXPECT_EQ(breach_of({line(105, {{"lr", 1}})}), "a metric line at step 105, outside the job's [0, 100] (its steps)");
  EXPECT_EQ(breach_of({line(5, {{"train/loss", std::nan("")}})}),
            "metric 'train/loss' at step 5: value nan is not finite");
  EXPECT_NE(breach_of({R"({"step": 5, "metrics": {"train/loss": NaN}})"}).find("is not JSON (a bare NaN"),
            std::string::npos);
  EXPECT_NE(breach_of({R"({"step": 5.5, "metrics": {}})"}).find("a malformed metric line (metric line: no integer 'step')"),
            std::string::npos);
  EXPECT_NE(breach_of({line(5, {{"lr", 1}}), "{\"step\": 10, \"metrics\": {\"lr\": 1, \"pad\": \"xxxx"}, true)
                .find("a line of more than 1048576 bytes"),
            std::string::npos);
  EXPECT_NE(breach_of({line(5, {{"my/metric", 1}})}).find("metric name 'my/metric': not a metric gammalab-train reports"),
            std::string::npos);
  EXPECT_NE(breach_of({line(5, {{"branch_point", 5}})}).find("not a program's to give"), std::string::npos);
  EXPECT_EQ(breach_of({line(5, {{"sys/memory_bytes", 1e9}})}),
            "metric 'sys/memory_bytes' at step 5: the worker measures it, a program does not report it");
  // After a breach nothing more is relayed, and the first breach is the one named.
  ProgramContract contract({}, 100, 5);
  contract.admit(line(20, {{"lr", 1}}), false);
  EXPECT_TRUE(contract.admit(line(5, {{"lr", 1}}), false).empty());
  EXPECT_NE(contract.breach().find("no metric line between step 0 and step 20"), std::string::npos);
}

// Metrics of its own ("user/NAME") are relayed like the known ones, up to the limit per job; one more is a breach
// that names it, the step and the limit.
TEST(ProgramContract, MetricsOfItsOwnAreRelayedUpToTheLimit) {
  ProgramContract contract({}, /*steps=*/100, /*log_every=*/5);
  std::map<std::string, double> values{{"train/loss", 2.0}};
  for (std::size_t k = 0; k < metric_names::kMaxUserMetricsPerJob; ++k) values["user/m" + std::to_string(k)] = -1.0;
  EXPECT_EQ(contract.admit(line(0, values), false).size(), values.size());
  EXPECT_EQ(contract.admit(line(5, values), false).size(), values.size()) << "the same names again: no new ones";
  EXPECT_EQ(contract.breach(), "");
  EXPECT_TRUE(contract.admit(line(10, {{"user/one-more", 1.0}}), false).empty());
  EXPECT_EQ(contract.breach(), "metric 'user/one-more' at step 10: more than 32 metrics of its own (user/NAME), the "
                               "limit per job");
  ProgramContract malformed({}, 100, 5);
  EXPECT_TRUE(malformed.admit(line(0, {{"user/top 1", 1.0}}), false).empty());
  EXPECT_NE(malformed.breach().find("a metric of your own is \"user/\" and then 1 to 64"), std::string::npos)
      << malformed.breach();
}

TEST(ProgramContract, ExitingBeforeTheLastStepIsNotASuccess) {
  ProgramContract contract({}, 40, 5);
  contract.admit(line(5, {{"lr", 1}}), false);
  EXPECT_EQ(contract.unfinished(),
            "the program exited with status 0, but its last metric line is at step 5, not the job's last step 40: a "
            "run that does not show its end is not a success");
  EXPECT_EQ(ProgramContract({40, {"lr"}}, 40, 5).unfinished(), "") << "a resume after everything was stored";
}

TEST(ChildProcessLines, ALineWithoutEndIsCutAndTheReaderHoldsOneBoundedLine) {
  // 5 MiB without a newline, then a short line: the first comes back cut to the limit, the rest of it skipped.
  ChildProcess child({"/bin/sh", "-c", "head -c 5242880 /dev/zero | tr '\\0' x; printf '\\nnext\\n'"}, {}, "/dev/null");
  const auto first = child.read_line();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->size(), kMaxChildLineBytes);
  EXPECT_TRUE(child.line_was_cut());
  const auto next = child.read_line();
  ASSERT_TRUE(next);
  EXPECT_EQ(*next, "next");
  EXPECT_FALSE(child.line_was_cut());
  EXPECT_FALSE(child.read_line());
  EXPECT_EQ(child.wait(), 0);
}

}  // namespace
}  // namespace gammalab
