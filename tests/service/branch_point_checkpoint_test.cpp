// A run's branch point is taken only once the coordinator sees its checkpoint whole (server/job_files.h,
// branch_checkpoint_problem): announced without one, or with one shorter than its integrity record says, the
// announcement is left out of the report (the rest of it is stored: nothing is lost) and the branches wait. A
// cooldown branch whose attempt failed goes back to the queue after a back-off. Over real gRPC into a real
// SQLite file, with the checkpoint files written in the coordinator's shared root.
#include <gtest/gtest.h>

#include <fstream>

#include "core/checkpoint_record.h"
#include "core/metric_names.h"
#include "core/shared_root.h"
#include "server/sqlite.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

v1::MetricPoint point(std::int64_t step, const std::string& name, double value) {
  v1::MetricPoint p;
  p.set_step(step);
  p.set_tokens(step * 100);
  p.set_name(name);
  p.set_value(value);
  return p;
}

// A run of 100 steps with a branch point at 40, and its branch.
Sweep run_and_branch() {
  Sweep sweep = make_sweep("branched", 2, 0, 3);
  sweep.jobs[0].config.steps = 100;
  sweep.jobs[0].branch_points = {40};
  SweepJob& branch = sweep.jobs[1];
  branch.config = sweep.jobs[0].config;
  branch.config.steps = 50;
  branch.config.schedule.kind = ScheduleKind::Wsd;
  branch.config.schedule.decay_steps = 10;
  branch.config_hash = config_hash(branch.config);
  branch.parent = 0;
  branch.branch_step = 40;
  return sweep;
}

class BranchPointCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    sweep_ = c_.store().create_sweep(run_and_branch(), "", "", false).sweep.id;
    worker_ = c_.store().register_worker("host", 2, {}, "", c_.worker_token_id());
    auto lease = c_.store().lease(worker_, 600000, 2);
    ASSERT_TRUE(lease);
    run_ = lease->job.id;
    ASSERT_TRUE(c_.store().start(worker_, run_, 1));
  }

  grpc::Status report(const std::vector<v1::MetricPoint>& points) { return report_metrics(*stub_, run_, 1, points); }

  // The checkpoint file at `step` with `bytes` of payload and a record naming `recorded` bytes.
  void write_checkpoint(std::int64_t step, std::size_t bytes, std::uint64_t recorded) {
    const auto dir = (c_.db_path().parent_path() / "shared") / shared_root::job_ckpt_dir(run_);
    std::filesystem::create_directories(dir);
    const std::string name = shared_root::checkpoint_file_name(step);
    std::ofstream(dir / name, std::ios::binary) << std::string(bytes, 'x');
    std::ofstream(dir / checkpoint_record_name(name)) << format_checkpoint_record({"00000000", recorded});
  }

  std::int64_t stored(const std::string& metric) {
    sql::Database db(c_.db_path().string());
    sql::Statement s(db.handle(), "SELECT COUNT(*) FROM metrics m JOIN metric_names n ON n.id = m.name_id "
                                  "WHERE m.job_id = " + run_ + " AND n.name = '" + metric + "'");
    return s.step() ? s.int64(0) : -1;
  }

  JobRecord branch() { return c_.store().list_jobs(sweep_).at(1); }

  InProcessCoordinator c_{"branch-point-checkpoint"};
  std::unique_ptr<v1::WorkerGateway::Stub> stub_ = v1::WorkerGateway::NewStub(c_.own_channel());
  std::string sweep_, worker_, run_;
};

TEST_F(BranchPointCheckpoint, AnAnnouncementIsTakenOnlyOnceItsCheckpointIsThereWhole) {
  const std::string branch_point(metric_names::kBranchPoint);
  const std::string waiting = "waits for its run (job " + run_ + ") to write its checkpoint at step 40";
  // No checkpoint: the loss is stored, the announcement is not, and the branch waits.
  ASSERT_TRUE(report({point(40, "train/loss", 3.0), point(40, branch_point, 40)}).ok());
  EXPECT_EQ(stored("train/loss"), 1);
  EXPECT_EQ(stored(branch_point), 0);
  EXPECT_EQ(c_.gateway().unverified_branch_points(), 1);
  EXPECT_EQ(branch().pending_reason, waiting);
  // A checkpoint shorter than its record says (torn, or still being copied): still not taken.
  write_checkpoint(40, 100, 4096);
  ASSERT_TRUE(report({point(40, branch_point, 40)}).ok());
  EXPECT_EQ(stored(branch_point), 0);
  EXPECT_EQ(c_.gateway().unverified_branch_points(), 2);
  EXPECT_EQ(branch().pending_reason, waiting);
  // A link where the checkpoint belongs is not followed, whatever it points at.
  const auto dir = (c_.db_path().parent_path() / "shared") / shared_root::job_ckpt_dir(run_);
  const std::string name = shared_root::checkpoint_file_name(40);
  std::filesystem::rename(dir / name, dir / "elsewhere");
  std::ofstream(dir / "elsewhere", std::ios::binary | std::ios::trunc) << std::string(4096, 'x');
  std::filesystem::create_symlink(dir / "elsewhere", dir / name);
  ASSERT_TRUE(report({point(40, branch_point, 40)}).ok());
  EXPECT_EQ(stored(branch_point), 0);
  std::filesystem::remove(dir / name);
  // Whole: taken, and the branch may start.
  write_checkpoint(40, 4096, 4096);
  ASSERT_TRUE(report({point(40, branch_point, 40)}).ok());
  EXPECT_EQ(stored(branch_point), 1);
  EXPECT_EQ(c_.gateway().unverified_branch_points(), 3);
  EXPECT_EQ(branch().pending_reason, "");
  auto lease = c_.store().lease(worker_, 600000, 1);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, branch().id);
}

// A branch's failed attempt is not retried at once: what fails it fast would use up its attempts in seconds.
TEST_F(BranchPointCheckpoint, AFailedBranchAttemptBacksOff) {
  write_checkpoint(40, 64, 64);
  ASSERT_TRUE(report({point(40, std::string(metric_names::kBranchPoint), 40)}).ok());
  auto lease = c_.store().lease(worker_, 600000, 1);
  ASSERT_TRUE(lease);
  const std::string id = lease->job.id;
  ASSERT_EQ(id, branch().id);
  ASSERT_TRUE(c_.store().finish(worker_, id, 1, AttemptEnd::kFailed, "exit code 1"));
  EXPECT_EQ(branch().state, JobState::kPending);
  EXPECT_EQ(branch().error, "exit code 1 (the next attempt starts in 10 s at the earliest)");
  EXPECT_EQ(branch().pending_reason.rfind("its last attempt failed: the next starts in ", 0), 0u)
      << branch().pending_reason;
  EXPECT_FALSE(c_.store().lease(worker_, 600000, 1)) << "retried at once";
  sql::Database(c_.db_path().string()).exec("UPDATE jobs SET not_before_ms = 0");  // the back-off has passed
  lease = c_.store().lease(worker_, 600000, 1);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, id);
  // The second failure waits twice as long.
  ASSERT_TRUE(c_.store().finish(worker_, id, 2, AttemptEnd::kFailed, "exit code 1"));
  EXPECT_EQ(branch().error, "exit code 1 (the next attempt starts in 20 s at the earliest)");
}

}  // namespace
}  // namespace gammalab::testing
