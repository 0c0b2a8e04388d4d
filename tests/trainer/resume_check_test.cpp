// A run resumes only from its own job's checkpoints, written with its own config, whose metric lines reach back
// to what the coordinator stores now (worker/trainer/checkpoint_resume_check.h). Anything else would succeed
// with another job's values, or with steps that have no points.
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "core/config_error.h"
#include "core/exit_codes.h"
#include "core/metric.h"
#include "core/metric_names.h"
#include "core/shared_root.h"
#include "tests/trainer/trained_run.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/checkpoint.h"

namespace gammalab::trainer {
namespace {

using testing::TempDir;
using testing::TrainedRun;
using testing::tiny_job;
using testing::train_in_process;

constexpr const char* kJobA = "0123456789abcdef0123456789abcdef";
constexpr const char* kJobB = "fedcba9876543210fedcba9876543210";

JobConfig job(const std::filesystem::path& data) {
  JobConfig c = tiny_job(data, "unified");
  c.steps = 60;
  c.log_every = 1;
  c.eval_every = 15;
  c.ckpt_every = 30;
  return c;
}

// Values that do not depend on the clock, by metric and step.
std::map<std::string, std::map<std::int64_t, double>> deterministic(const TrainedRun& run) {
  auto out = run.series;
  out.erase(std::string(metric_names::kWallSeconds));
  out.erase(std::string(metric_names::kTokensPerSecond));
  return out;
}

// A run killed after step 45 by job A: its checkpoint at step 30 is in `dir`.
void crash_as(const JobConfig& c, const std::filesystem::path& dir, const char* uid,
              const std::atomic<std::int64_t>* stored_before = nullptr) {
  TrainerOptions o;
  o.ckpt_dir = dir;
  o.job_uid = uid;
  o.stored_before = stored_before;
  o.crash_after_step = 45;
  ASSERT_EQ(train_in_process(c, o).code, exit_codes::kCrashed);
  ASSERT_EQ(read_checkpoint_meta(*latest_checkpoint(dir)).step, 30);
}

TEST(ResumeCheck, AnotherJobsCheckpointIsRemovedAndTheJobTrainsFromStepZero) {
  TempDir data, dir;
  testing::write_byte_corpus(data.path, 800);
  const JobConfig c = job(data.path);
  const TrainedRun reference = train_in_process(c, {});
  ASSERT_EQ(reference.code, 0);
  crash_as(c, dir.path, kJobA);
  EXPECT_EQ(read_checkpoint_meta(*latest_checkpoint(dir.path)).job_uid, kJobA);

  // Job B got job A's id (a database restored from a backup hands ids out again): same directory, same config.
  TrainerOptions o;
  o.ckpt_dir = dir.path;
  o.job_uid = kJobB;
  o.crash_after_step = 10;  // before its own first checkpoint: what is left in the directory is A's, or nothing
  const TrainedRun early = train_in_process(c, o);
  ASSERT_EQ(early.code, exit_codes::kCrashed);
  EXPECT_NE(early.log.find("written by job uid " + std::string(kJobA)), std::string::npos) << early.log;
  EXPECT_NE(early.log.find("(removed)"), std::string::npos) << early.log;
  EXPECT_FALSE(latest_checkpoint(dir.path).has_value()) << "job A's checkpoint is still there";
  EXPECT_EQ(early.loss().begin()->first, 1) << "job B did not start from step 0";

  o.crash_after_step = 0;
  const TrainedRun b = train_in_process(c, o);
  ASSERT_EQ(b.code, 0);
  EXPECT_EQ(deterministic(b), deterministic(reference));
  EXPECT_EQ(read_checkpoint_meta(*latest_checkpoint(dir.path)).job_uid, kJobB);
}

TEST(ResumeCheck, AShorterJobNeverResumesALongerOnesCheckpoint) {
  TempDir data, dir;
  testing::write_byte_corpus(data.path, 800);
  JobConfig c = job(data.path);
  // Written before jobs had uids. A 20-step job that got this directory used to train nothing and succeed.
  crash_as(c, dir.path, "");
  JobConfig shorter = c;
  shorter.steps = 20;
  shorter.ckpt_every = 10;
  JobConfig other_lr = c;
  other_lr.optim.lr *= 2;
  const TrainedRun reference = train_in_process(shorter, {});
  TrainerOptions o;
  o.ckpt_dir = dir.path;
  // Run by hand (no uid): the directory is another run's, and that is an error naming why.
  const auto expect_error = [&](const JobConfig& config, const std::string& why) {
    try {
      train_in_process(config, o);
      ADD_FAILURE() << "resumed a checkpoint that is not this run's";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  expect_error(shorter, "its step 30 is past this run's last step 20");
  expect_error(other_lr, "written with another config (they differ at /optim/lr)");
  ASSERT_TRUE(latest_checkpoint(dir.path).has_value()) << "a run by hand removed a checkpoint it did not write";
  // Under a worker (a uid): another job's, removed; the job trains its own 20 steps from step 0.
  o.job_uid = kJobB;
  const TrainedRun run = train_in_process(shorter, o);
  ASSERT_EQ(run.code, 0);
  EXPECT_NE(run.log.find("another job's (removed)"), std::string::npos) << run.log;
  EXPECT_EQ(deterministic(run), deterministic(reference));
  EXPECT_EQ(run.loss().size(), 20u);
}

TEST(ResumeCheck, ACheckpointWhoseLinesDoNotReachBackToTheStoredStepsIsNotResumed) {
  TempDir data;
  testing::write_byte_corpus(data.path, 800);
  const JobConfig c = job(data.path);
  const TrainedRun reference = train_in_process(c, {});
  ASSERT_EQ(reference.code, 0);
  struct Case {
    const char* what;
    std::int64_t stored_now;  // what the coordinator has when the job is leased again
    bool resumes;
  };
  // The checkpoint at 30 keeps the lines from step 25 on (the worker said every line before 25 was stored).
  for (const Case& k : {Case{"the database is as it was", 28, true}, Case{"exactly as far as the checkpoint's lines", 25, true},
                        Case{"restored from a backup taken at step 10", 10, false},
                        Case{"restored from a backup taken before any point", -1, false}}) {
    SCOPED_TRACE(k.what);
    TempDir dir;
    std::atomic<std::int64_t> stored_before{25};
    crash_as(c, dir.path, kJobA, &stored_before);
    EXPECT_EQ(read_checkpoint_meta(*latest_checkpoint(dir.path)).lines_stored_before, 25);
    TrainerOptions o;
    o.ckpt_dir = dir.path;
    o.job_uid = kJobA;
    std::set<std::string> names;
    for (const auto& [name, series] : reference.series) {
      if (series.count(k.stored_now)) names.insert(name);
    }
    o.stored = {k.stored_now, std::vector<std::string>(names.begin(), names.end())};
    const TrainedRun resumed = train_in_process(c, o);
    ASSERT_EQ(resumed.code, 0);
    EXPECT_EQ(resumed.log.find("refused checkpoint") == std::string::npos, k.resumes) << resumed.log;
    if (!k.resumes) {
      EXPECT_NE(resumed.log.find("keeps the metric lines from step 25 on, but the coordinator stores them only up "
                                 "to step " + std::to_string(std::max<std::int64_t>(0, k.stored_now))),
                std::string::npos)
          << resumed.log;
      EXPECT_EQ(resumed.log.find("(removed)"), std::string::npos) << "the job's own checkpoint is not another's";
    }
    // Whichever way it went, the coordinator ends with every point, each the uninterrupted run's value.
    for (const auto& [name, series] : deterministic(reference)) {
      for (const auto& [step, value] : series) {
        const bool stored_before_lease = step < k.stored_now || (step == k.stored_now && names.count(name));
        if (stored_before_lease) continue;
        const auto it = resumed.series.find(name);
        ASSERT_TRUE(it != resumed.series.end() && it->second.count(step)) << name << " at step " << step << " lost";
        EXPECT_EQ(it->second.at(step), value) << name << " at step " << step;
      }
    }
  }
}

TEST(ResumeCheck, ABranchRefusesAStartCheckpointWrittenByAnotherJob) {
  TempDir data, parent, branch;
  testing::write_byte_corpus(data.path, 800);
  const JobConfig c = job(data.path);
  crash_as(c, parent.path, kJobA);
  TrainerOptions o;
  o.ckpt_dir = branch.path;
  o.start_from = parent.path / shared_root::checkpoint_file_name(30);
  o.start_from_uid = kJobB;
  EXPECT_THROW(
      {
        try {
          train_in_process(c, o);
        } catch (const ConfigError& e) {
          EXPECT_NE(std::string(e.what()).find("not by the run this branch starts from"), std::string::npos) << e.what();
          throw;
        }
      },
      ConfigError);
  o.start_from_uid = kJobA;
  o.crash_after_step = 31;
  const TrainedRun ok = train_in_process(c, o);
  EXPECT_EQ(ok.code, exit_codes::kCrashed);
  EXPECT_EQ(ok.loss().begin()->first, 31) << "the branch did not start from its run's checkpoint at step 30";
}

}  // namespace
}  // namespace gammalab::trainer
