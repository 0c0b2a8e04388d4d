// A resume costs what was lost, not the run (core/metric_replay.h): under a worker a checkpoint keeps only the
// metric lines from the step the worker last reported stored, and a resumed trainer prints none of what the
// lease says the coordinator has: neither the checkpoint's lines nor the steps it trains again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "core/exit_codes.h"
#include "core/metric.h"
#include "core/metric_names.h"
#include "tests/trainer/trained_run.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/checkpoint.h"
#include "worker/trainer/metrics_logger.h"
#include "worker/trainer/stored_step_feed.h"

namespace gammalab::trainer {
namespace {

using testing::TempDir;
using testing::TrainedRun;
using testing::tiny_job;
using testing::train_in_process;

using Point = std::tuple<std::string, std::int64_t>;  // (metric, step)

std::set<Point> points_of(const TrainedRun& run) {
  std::set<Point> out;
  for (const auto& [name, series] : run.series) {
    for (const auto& [step, value] : series) out.insert({name, step});
  }
  return out;
}

JobConfig resume_job(const std::filesystem::path& data) {
  JobConfig c = tiny_job(data, "unified");
  c.steps = 60;
  c.log_every = 1;
  c.eval_every = 15;
  c.ckpt_every = 30;
  return c;
}

TEST(ResumeTail, ACheckpointUnderAWorkerKeepsOnlyTheLinesFromTheStepItLastReportedStored) {
  TempDir data, dir;
  testing::write_byte_corpus(data.path, 800);
  const JobConfig c = resume_job(data.path);
  std::atomic<std::int64_t> stored_before{25};  // the worker's word: every line before step 25 is stored
  TrainerOptions o;
  o.ckpt_dir = dir.path;
  o.stored_before = &stored_before;
  o.crash_after_step = 45;
  ASSERT_EQ(train_in_process(c, o).code, exit_codes::kCrashed);
  const CheckpointMeta meta = read_checkpoint_meta(*latest_checkpoint(dir.path));
  ASSERT_EQ(meta.step, 30);
  std::set<std::int64_t> steps;
  for (const std::string& line : meta.metric_lines) steps.insert(parse_metric_line(line)->front().step);
  EXPECT_EQ(steps, (std::set<std::int64_t>{25, 26, 27, 28, 29, 30}));

  // Without a worker's word it keeps every line since step 1, as a standalone run must.
  TempDir alone;
  o.ckpt_dir = alone.path;
  o.stored_before = nullptr;
  ASSERT_EQ(train_in_process(c, o).code, exit_codes::kCrashed);
  steps.clear();
  for (const std::string& line : read_checkpoint_meta(*latest_checkpoint(alone.path)).metric_lines) {
    steps.insert(parse_metric_line(line)->front().step);
  }
  EXPECT_EQ(steps.size(), 30u);
  EXPECT_EQ(*steps.begin(), 1);
}

TEST(ResumeTail, AResumedRunPrintsOnlyWhatTheCoordinatorLacksAndTogetherTheyMakeTheUninterruptedRun) {
  TempDir data;
  testing::write_byte_corpus(data.path, 800);
  const JobConfig c = resume_job(data.path);
  const TrainedRun reference = train_in_process(c, {});
  ASSERT_EQ(reference.code, 0);
  std::set<std::string> names_at_40;
  for (const auto& [name, step] : points_of(reference)) {
    if (step == 40) names_at_40.insert(name);
  }
  ASSERT_GE(names_at_40.size(), 2u);
  const std::string first_name = *names_at_40.begin();

  struct Case {
    const char* what;
    StoredMetrics stored;
  };
  // Killed at 45 with its checkpoint at 30. The coordinator has: part of step 28 (a batch ended inside its
  // line), so the checkpoint's lines are printed from there; or everything up to step 40, so the steps trained
  // again after the checkpoint print nothing until 41.
  const std::vector<Case> cases = {
      {"stored up to step 28 in part", {28, {first_name}}},
      {"stored through step 40", {40, std::vector<std::string>(names_at_40.begin(), names_at_40.end())}},
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(k.what);
    TempDir dir;
    std::atomic<std::int64_t> stored_before{20};
    TrainerOptions o;
    o.ckpt_dir = dir.path;
    o.stored_before = &stored_before;
    o.crash_after_step = 45;
    ASSERT_EQ(train_in_process(c, o).code, exit_codes::kCrashed);
    o.crash_after_step = 0;
    o.stored = k.stored;
    const TrainedRun resumed = train_in_process(c, o);
    ASSERT_EQ(resumed.code, 0);
    // What it printed is exactly what the coordinator lacks, each value the uninterrupted run's.
    std::set<Point> expected;
    for (const auto& [name, step] : points_of(reference)) {
      const bool stored = step < k.stored.last_step ||
                          (step == k.stored.last_step && std::count(k.stored.names_at_last_step.begin(),
                                                                    k.stored.names_at_last_step.end(), name) > 0);
      if (!stored) expected.insert({name, step});
    }
    EXPECT_EQ(points_of(resumed), expected);
    for (const auto& [name, series] : resumed.series) {
      // Clocks: the resumed run's own.
      if (name == metric_names::kWallSeconds || name == metric_names::kTokensPerSecond) continue;
      for (const auto& [step, value] : series) {
        EXPECT_EQ(value, reference.series.at(name).at(step)) << name << " at step " << step;
      }
    }
  }
}

// A run without a checkpoint directory never writes the lines anywhere: it keeps none of them in memory
// either, however long it runs, and prints every one.
TEST(ResumeTail, ALoggerForARunWithoutCheckpointsKeepsNoLine) {
  std::ostringstream printed_keeping, printed;
  MetricsLogger keeping(printed_keeping), forgetting(printed, {}, /*keep_lines=*/false);
  for (std::int64_t step = 1; step <= 100; ++step) {
    keeping.metrics(step, step * 64, {{"train/loss", 3.0}});
    forgetting.metrics(step, step * 64, {{"train/loss", 3.0}});
  }
  EXPECT_EQ(keeping.unstored().size(), 100u);
  EXPECT_TRUE(forgetting.unstored().empty());
  EXPECT_EQ(printed.str(), printed_keeping.str());
}

TEST(ResumeTail, TheStoredStepFeedTakesDecimalStepsOnlyAndNeverGoesBack) {
  EXPECT_EQ(StoredStepFeed::parse_line("0"), 0);
  EXPECT_EQ(StoredStepFeed::parse_line("1234"), 1234);
  for (const char* bad : {"", "-1", "12x", " 12", "1e3", "99999999999999999999999", "10000000001"}) {
    EXPECT_EQ(StoredStepFeed::parse_line(bad), -1) << bad;
  }
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const StoredStepFeed feed(fds[0]);
  const auto wait_for = [&](std::int64_t value) {
    for (int i = 0; i < 500 && feed.stored_before().load() != value; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return feed.stored_before().load();
  };
  const std::string overlong(5000, '7');
  const std::string text = "12\n" + overlong + "\ngarbage\n30\n20\n";
  ASSERT_EQ(::write(fds[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
  EXPECT_EQ(wait_for(30), 30);
  const std::string later = "31x\n25\n40\n";
  ASSERT_EQ(::write(fds[1], later.data(), later.size()), static_cast<ssize_t>(later.size()));
  EXPECT_EQ(wait_for(40), 40);
  ::close(fds[1]);
}

}  // namespace
}  // namespace gammalab::trainer
