// Cooldown branches in the store (docs/branches.md): a branch is leased only once its run has reported the
// checkpoint it starts from written, on the run's own fenced metric path; it waits with a reason while the run
// has not, and is cancelled, saying why, if the run ends without it (a retry of the run brings it back);
// waiting branches never hold up other work; a branch point is taken only at a step the run declares; a
// resubmitted sweep starts a branch from the checkpoint of the finished run its parent reuses.
#include <gtest/gtest.h>

#include "core/metric_names.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

// A run of 100 steps with branch points 40 and 60, then its two branches, then one independent job.
Sweep run_with_branches(const std::string& name) {
  Sweep sweep = make_sweep(name, 4);
  sweep.jobs[0].config.steps = 100;
  sweep.jobs[0].branch_points = {40, 60};
  for (std::size_t b = 1; b <= 2; ++b) {
    SweepJob& branch = sweep.jobs[b];
    branch.config = sweep.jobs[0].config;
    branch.config.steps = b == 1 ? 50 : 75;
    branch.config.schedule.kind = ScheduleKind::Wsd;
    branch.config.schedule.decay_steps = branch.config.steps - (b == 1 ? 40 : 60);
    branch.config_hash = config_hash(branch.config);
    branch.parent = 0;
    branch.branch_step = b == 1 ? 40 : 60;
  }
  return sweep;
}

MetricPoint branch_point(std::int64_t step) { return {step, step * 100, std::string(metric_names::kBranchPoint), double(step)}; }

class StoreBranches : public ::testing::Test {
 protected:
  std::filesystem::path path_ = temp_db("branches");
  std::unique_ptr<Store> store_ = std::make_unique<Store>(path_.string());
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(path_.parent_path());
  }
  std::string worker() { return store_->register_worker("host", 4, {}, ""); }
  JobRecord job(const std::string& sweep, std::size_t index) { return store_->list_jobs(sweep).at(index); }
};

TEST_F(StoreBranches, ABranchIsLeasedOnceItsRunHasWrittenItsCheckpoint) {
  const std::string sweep = store_->create_sweep(run_with_branches("a"), "", "", false).sweep.id;
  const JobRecord run = job(sweep, 0), first = job(sweep, 1), second = job(sweep, 2);
  EXPECT_EQ(first.parent_id, run.id);
  EXPECT_EQ(first.branch_step, 40);
  EXPECT_EQ(std::vector<std::int64_t>(run.branch_points.begin(), run.branch_points.end()),
            (std::vector<std::int64_t>{40, 60}));
  EXPECT_EQ(first.pending_reason, "waits for its run (job " + run.id + ") to write its checkpoint at step 40");

  const std::string w = worker();
  auto lease = store_->lease(w, 10000, 4);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, run.id);
  EXPECT_EQ(lease->job.branch_points.size(), 2u);  // its trainer keeps those checkpoints
  ASSERT_TRUE(store_->start(w, run.id, 1));
  // The branches wait; the independent job after them does not.
  lease = store_->lease(w, 10000, 3);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, job(sweep, 3).id);
  EXPECT_FALSE(store_->lease(w, 10000, 2));

  // A report from an attempt that does not hold the run is fenced out, as the coordinator's service fences
  // every report: the branch still waits.
  const IngestFence fence;
  EXPECT_EQ(store_->add_metrics(run.id, 2, {branch_point(40)}, &fence).refusal, IngestResult::Refusal::kNotHolder);
  EXPECT_FALSE(store_->lease(w, 10000, 2));
  EXPECT_EQ(store_->add_metrics(run.id, 1, {branch_point(40)}, &fence).stored, 1);
  lease = store_->lease(w, 10000, 2);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, first.id);
  EXPECT_EQ(lease->job.branch_start_job_id, run.id);
  EXPECT_EQ(lease->job.branch_step, 40);
  EXPECT_EQ(job(sweep, 2).pending_reason, "waits for its run (job " + run.id + ") to write its checkpoint at step 60");
  EXPECT_FALSE(store_->lease(w, 10000, 1)) << "the second branch's point is not written yet";
  EXPECT_EQ(store_->add_metrics(run.id, 1, {branch_point(60)}).stored, 1);
  lease = store_->lease(w, 10000, 1);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, second.id);
}

TEST_F(StoreBranches, ARunThatEndsWithoutTheCheckpointEndsItsBranchAndOtherSweepsRun) {
  Sweep sweep_file = run_with_branches("a");
  sweep_file.max_attempts = 1;
  sweep_file.priority = 5;
  sweep_file.jobs.pop_back();  // only the run and its branches
  const std::string sweep = store_->create_sweep(sweep_file, "", "", false).sweep.id;
  const std::string other = store_->create_sweep(make_sweep("b", 1), "", "", false).sweep.id;
  const std::string w = worker();
  auto lease = store_->lease(w, 10000, 4);
  ASSERT_TRUE(lease);
  const std::string run = lease->job.id;
  ASSERT_TRUE(store_->start(w, run, 1));
  EXPECT_EQ(store_->add_metrics(run, 1, {branch_point(40)}).stored, 1);
  ASSERT_TRUE(store_->finish(w, run, 1, AttemptEnd::kFailed, "out of memory"));
  // The branch at 40 can still start (its checkpoint was written before the failure); the one at 60 cannot.
  lease = store_->lease(w, 10000, 3);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, job(sweep, 1).id);
  // The branch at 60 would wait for ever, and its sweep never end: it is cancelled, saying why.
  const JobRecord orphan = job(sweep, 2);
  EXPECT_EQ(orphan.state, JobState::kCancelled);
  EXPECT_EQ(orphan.error, "its run (job " + run + ") ended failed before writing its checkpoint at step 60: retry "
                          "the run (gammalab retry " + run + ") and this branch waits for it again");
  // The higher-priority sweep has nothing left to lease: the other sweep's job is leased, not starved.
  lease = store_->lease(w, 10000, 2);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.sweep_id, other);
  // Retrying the run brings its orphaned branch back to wait for it; a branch the user cancelled stays so.
  ASSERT_TRUE(store_->retry(run));
  EXPECT_EQ(job(sweep, 2).state, JobState::kPending);
  EXPECT_EQ(job(sweep, 2).pending_reason, "waits for its run (job " + run + ") to write its checkpoint at step 60");
}

TEST_F(StoreBranches, ABranchPointIsTakenOnlyAtADeclaredStepWithItsStepAsValue) {
  const std::string sweep = store_->create_sweep(run_with_branches("a"), "", "", false).sweep.id;
  const std::string w = worker();
  auto lease = store_->lease(w, 10000, 4);
  ASSERT_TRUE(lease);
  const std::string run = lease->job.id;
  ASSERT_TRUE(store_->start(w, run, 1));
  const IngestFence fence;
  for (const MetricPoint& bogus : {branch_point(50), MetricPoint{40, 4000, std::string(metric_names::kBranchPoint), 7.0}}) {
    const IngestResult r = store_->add_metrics(run, 1, {{40, 4000, "train/loss", 2.0}, bogus}, &fence);
    EXPECT_EQ(r.refusal, IngestResult::Refusal::kBadBranchPoint);
    EXPECT_NE(r.reason.find("a branch point is announced only at a step the job declares (40, 60)"), std::string::npos)
        << r.reason;
  }
  EXPECT_EQ(job(sweep, 1).pending_reason, "waits for its run (job " + run + ") to write its checkpoint at step 40");
  EXPECT_EQ(store_->add_metrics(run, 1, {branch_point(40)}, &fence).stored, 1);
  EXPECT_EQ(job(sweep, 1).pending_reason, "");
}

TEST_F(StoreBranches, AResubmittedSweepStartsItsBranchesFromTheReusedRunsCheckpoints) {
  const std::string first = store_->create_sweep(run_with_branches("a"), "", "", false).sweep.id;
  const std::string w = worker();
  auto lease = store_->lease(w, 10000, 1);
  ASSERT_TRUE(lease);
  const std::string run = lease->job.id;
  ASSERT_TRUE(store_->start(w, run, 1));
  EXPECT_EQ(store_->add_metrics(run, 1, {branch_point(40), branch_point(60)}).stored, 2);
  ASSERT_TRUE(store_->finish(w, run, 1, AttemptEnd::kSucceeded, ""));
  ASSERT_EQ(store_->cancel(first, {}), 3);  // its branches and the independent job never ran

  const std::string again = store_->create_sweep(run_with_branches("a"), "", "", false).sweep.id;
  const JobRecord reused = job(again, 0), branch = job(again, 1);
  EXPECT_EQ(reused.state, JobState::kSucceeded);
  EXPECT_EQ(reused.reused_from, run);
  EXPECT_EQ(branch.state, JobState::kPending);
  EXPECT_EQ(branch.parent_id, reused.id);
  // The checkpoint lies in the directory of the run that wrote it.
  EXPECT_EQ(branch.branch_start_job_id, run);
  EXPECT_EQ(branch.pending_reason, "");
}

TEST_F(StoreBranches, ABranchOfAFinishedRunThatNeverWroteItsPointTrainsFromStepZero) {
  // The run finished in an earlier sweep without these branch points (its branches were others).
  Sweep earlier = run_with_branches("a");
  earlier.jobs.resize(1);
  earlier.jobs[0].branch_points.clear();
  store_->create_sweep(earlier, "", "", false);
  const std::string w = worker();
  auto lease = store_->lease(w, 10000, 1);
  ASSERT_TRUE(lease);
  ASSERT_TRUE(store_->start(w, lease->job.id, 1));
  ASSERT_TRUE(store_->finish(w, lease->job.id, 1, AttemptEnd::kSucceeded, ""));

  const std::string sweep = store_->create_sweep(run_with_branches("a"), "", "", false).sweep.id;
  EXPECT_EQ(job(sweep, 0).state, JobState::kSucceeded);
  lease = store_->lease(w, 10000, 1);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, job(sweep, 1).id);
  EXPECT_EQ(lease->job.branch_start_job_id, "") << "no checkpoint to start from: the standalone run, same result";
}

}  // namespace
}  // namespace gammalab::testing
