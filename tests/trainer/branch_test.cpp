// Cooldown branches (docs/branches.md): a run started from a WSD parent's checkpoint at step s continues,
// bit for bit, the run that trains the same config from step 0. Each check here would fail if the optimizer
// state, the data position, the RNG or the schedule's step were not carried over, or if a parent could be
// used whose state at s is not the standalone run's.
#include <gtest/gtest.h>

#include <sstream>

#include "core/branch_point.h"
#include "core/config_error.h"
#include "core/exit_codes.h"
#include "core/metric.h"
#include "core/shared_root.h"
#include "tests/trainer/trained_run.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/checkpoint.h"
#include "worker/trainer/trainer.h"

namespace gammalab::trainer {
namespace {

using testing::TempDir;
using testing::TrainedRun;
using testing::train_in_process;
using testing::tiny_job;
using testing::write_byte_corpus;

// The branch tests expect every run to end well.
TrainedRun train_well(const JobConfig& c, const TrainerOptions& o) {
  TrainedRun run = train_in_process(c, o);
  EXPECT_EQ(run.code, 0) << run.log;
  return run;
}

// A WSD run with a 20% decay (in steps): the family's shape.
JobConfig wsd(const std::filesystem::path& data, std::int64_t steps, std::int64_t decay) {
  JobConfig c = tiny_job(data, "unified");
  c.steps = steps;
  c.log_every = 1;
  c.eval_every = 5;
  c.micro_batch = 8;  // two micro-batches per step: accumulation is part of the state too
  c.schedule.kind = ScheduleKind::Wsd;
  c.schedule.warmup_steps = 4;
  c.schedule.decay_steps = decay;
  return c;
}

std::filesystem::path checkpoint_at(const std::filesystem::path& dir, std::int64_t step) {
  return dir / shared_root::checkpoint_file_name(step);
}

TEST(Branch, ContinuesTheStandaloneRunBitForBit) {
  TempDir data, parent_dir, branch_dir, standalone_dir;
  write_byte_corpus(data.path, 800);
  // The parent: 50 steps, decaying over its last 10, with branch points at 16 and 28 (kept past rotation).
  const JobConfig parent = wsd(data.path, 50, 10);
  TrainerOptions po;
  po.ckpt_dir = parent_dir.path;
  po.keep_checkpoints_at = {16, 28};
  const TrainedRun parent_curve = train_well(parent, po);
  ASSERT_TRUE(std::filesystem::exists(checkpoint_at(parent_dir.path, 16)));
  ASSERT_TRUE(std::filesystem::exists(checkpoint_at(parent_dir.path, 28)));
  ASSERT_TRUE(std::filesystem::exists(checkpoint_at(parent_dir.path, 50)));
  // Each announced once written, on the metric path the coordinator reads.
  std::vector<std::int64_t> announced;
  for (const auto& [step, value] : parent_curve.series.at("branch_point")) {
    announced.push_back(step);
    EXPECT_EQ(value, double(step));
  }
  EXPECT_EQ(announced, (std::vector<std::int64_t>{16, 28}));

  // The branch at budget 20 steps: its last 4 decay, so it leaves the parent at step 16.
  const JobConfig branch = wsd(data.path, 20, 4);
  TrainerOptions bo;
  bo.ckpt_dir = branch_dir.path;
  bo.start_from = checkpoint_at(parent_dir.path, 16);
  const TrainedRun branched = train_well(branch, bo);
  TrainerOptions so;
  so.ckpt_dir = standalone_dir.path;
  const TrainedRun standalone = train_well(branch, so);

  // The branch's own curve starts after its branch point; from there every point is the standalone run's.
  const auto& loss = branched.series.at("train/loss");
  ASSERT_EQ(loss.begin()->first, 17);
  ASSERT_EQ(loss.rbegin()->first, 20);
  for (const auto& [step, value] : loss) EXPECT_EQ(value, standalone.series.at("train/loss").at(step)) << step;
  for (const std::string metric : {"lr", "grad_norm"}) {
    for (const auto& [step, value] : branched.series.at(metric)) {
      EXPECT_EQ(value, standalone.series.at(metric).at(step)) << metric << " " << step;
    }
  }
  EXPECT_EQ(branched.series.at("val/loss").at(20), standalone.series.at("val/loss").at(20));
  for (const auto& [name, tensor] : standalone.params) {
    EXPECT_TRUE(at::equal(branched.params.at(name), tensor)) << name;
  }
  // The decay is the branch's own: the parent was still at its peak LR at step 20.
  EXPECT_LT(branched.series.at("lr").at(20), parent_curve.series.at("lr").at(20));

  // A second attempt of the branch resumes from its own checkpoint, not from the parent's again.
  std::ostringstream out, log;
  Trainer again(branch, bo, out, log);
  ASSERT_EQ(again.run(), 0);
  EXPECT_NE(log.str().find("resumed from"), std::string::npos) << log.str();
  EXPECT_EQ(log.str().find("branch point"), std::string::npos) << log.str();
}

// A trainer killed after a branch point's checkpoint is written but before its announcement is printed: the
// attempt that resumes from that checkpoint must announce it, or the branch would wait for the whole run.
TEST(Branch, AResumeFromABranchPointsCheckpointAnnouncesItAgain) {
  TempDir data, parent_dir, resumed_dir;
  write_byte_corpus(data.path, 800);
  const JobConfig parent = wsd(data.path, 30, 6);
  TrainerOptions po;
  po.ckpt_dir = parent_dir.path;
  po.keep_checkpoints_at = {12};
  po.stop_after_step = 12;
  std::ostringstream out, log;
  ASSERT_EQ(Trainer(parent, po, out, log).run(), exit_codes::kStopped) << log.str();

  // Only the branch point's checkpoint, as if the attempt died right after writing it.
  const std::filesystem::path file = checkpoint_at(parent_dir.path, 12);
  const CheckpointMeta meta = read_checkpoint_meta(file);
  ASSERT_FALSE(meta.metric_lines.empty());
  const auto kept = parse_metric_line(meta.metric_lines.back());
  ASSERT_TRUE(kept.has_value());
  ASSERT_EQ(kept->size(), 1u);
  EXPECT_EQ(kept->front().name, "branch_point");
  EXPECT_EQ(kept->front().step, 12);
  for (const auto& entry : std::filesystem::directory_iterator(parent_dir.path)) {
    const std::string name = entry.path().filename();
    if (name.rfind(file.filename().string(), 0) == 0) std::filesystem::copy(entry.path(), resumed_dir.path / name);
  }
  TrainerOptions ro = po;
  ro.ckpt_dir = resumed_dir.path;
  ro.stop_after_step = 13;
  std::ostringstream resumed_out, resumed_log;
  ASSERT_EQ(Trainer(parent, ro, resumed_out, resumed_log).run(), exit_codes::kStopped) << resumed_log.str();
  EXPECT_NE(resumed_log.str().find("resumed from"), std::string::npos) << resumed_log.str();
  int announced = 0;
  std::istringstream lines(resumed_out.str());
  for (std::string line; std::getline(lines, line);) {
    if (const auto points = parse_metric_line(line)) {
      for (const auto& p : *points) announced += p.name == "branch_point" && p.step == 12;
    }
  }
  EXPECT_EQ(announced, 1) << resumed_out.str();
}

TEST(Branch, RefusesAParentWhoseStateAtThePointIsNotTheStandaloneRunsState) {
  TempDir data, parent_dir;
  write_byte_corpus(data.path, 400);
  const JobConfig parent = wsd(data.path, 30, 10);
  TrainerOptions po;
  po.ckpt_dir = parent_dir.path;
  po.keep_checkpoints_at = {12, 24};
  train_well(parent, po);
  auto refusal = [&](const JobConfig& branch, std::int64_t step) -> std::string {
    TempDir dir;
    TrainerOptions bo;
    bo.ckpt_dir = dir.path;
    bo.start_from = checkpoint_at(parent_dir.path, step);
    std::ostringstream out, log;
    Trainer t(branch, bo, out, log);
    try {
      t.run();
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "accepted";
  };
  // Step 24 is inside the parent's decay (it starts after step 20): its LR was already falling.
  EXPECT_NE(refusal(wsd(data.path, 28, 4), 24).find("learning rate differs at step 21"), std::string::npos);
  // Another seed (data order and initial weights) or another peak LR is another run.
  JobConfig seed = wsd(data.path, 16, 4);
  seed.seed = 7;
  EXPECT_NE(refusal(seed, 12).find("seed"), std::string::npos);
  JobConfig lr = wsd(data.path, 16, 4);
  lr.optim.lr *= 2;
  EXPECT_NE(refusal(lr, 12).find("optim.lr"), std::string::npos);
  // The same branch from the right point is accepted.
  EXPECT_EQ(refusal(wsd(data.path, 16, 4), 12), "accepted");
}

// Under a worker the parent's checkpoint lies below the shared root, and a link planted on the way to it (here
// at the parent's checkpoint directory, pointing at a directory of another run's checkpoints) is not followed.
TEST(Branch, ALinkPlantedOnTheWayToTheParentsCheckpointIsRefused) {
  TempDir data, root;
  write_byte_corpus(data.path, 400);
  const JobConfig parent = wsd(data.path, 30, 10);
  TrainerOptions po;
  po.ckpt_dir = root.path / "elsewhere";
  po.keep_checkpoints_at = {12};
  train_well(parent, po);
  std::filesystem::create_directories(root.path / "jobs" / "1");
  std::filesystem::create_directory_symlink(root.path / "elsewhere", root.path / "jobs" / "1" / "ckpt");
  std::filesystem::create_directories(root.path / "jobs" / "2" / "ckpt");
  TrainerOptions bo;
  bo.shared_root = root.path;
  bo.ckpt_dir = root.path / "jobs" / "2" / "ckpt";
  bo.start_from = root.path / "jobs" / "1" / "ckpt" / shared_root::checkpoint_file_name(12);
  std::ostringstream out, log;
  Trainer t(wsd(data.path, 16, 4), bo, out, log);
  EXPECT_ANY_THROW(t.run()) << log.str();
  EXPECT_EQ(out.str().find("train/loss"), std::string::npos) << "no step was trained from the linked checkpoint";
}

TEST(BranchPoint, ComparesTheScheduleOnlyWhereItChangesPiece) {
  JobConfig parent;
  parent.schedule.kind = ScheduleKind::Wsd;
  parent.schedule.warmup_steps = 100;
  parent.steps = 4'000'000'000;  // a check proportional to the step would take seconds here
  parent.schedule.decay_steps = 800'000'000;
  JobConfig branch = parent;
  branch.steps = 2'000'000'000;
  branch.schedule.decay_steps = 400'000'000;
  EXPECT_EQ(branch_point_mismatch(parent, branch, 1'600'000'000), "");
  EXPECT_NE(branch_point_mismatch(parent, branch, 1'600'000'001), "");  // the branch's own decay has begun
  branch.schedule.warmup_steps = 50;
  EXPECT_NE(branch_point_mismatch(parent, branch, 1000).find("schedule.warmup_steps"), std::string::npos);
  // Cosine runs of different lengths part right after their warmup.
  parent.schedule = {.kind = ScheduleKind::Cosine, .warmup_steps = 10};
  branch.schedule = parent.schedule;
  parent.steps = 1000;
  branch.steps = 500;
  EXPECT_EQ(branch_point_mismatch(parent, branch, 10), "");
  EXPECT_NE(branch_point_mismatch(parent, branch, 11).find("learning rate differs at step 11"), std::string::npos);
  EXPECT_NE(branch_point_mismatch(parent, branch, branch.steps), "");  // nothing left to train
}

}  // namespace
}  // namespace gammalab::trainer
