// Short training runs: the loss falls, metric lines follow core/metric.h, exact resume, SIGTERM handling.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <fstream>
#include <sstream>

#include <torch/cuda.h>

#include "core/exit_codes.h"
#include "core/metric.h"
#include "tests/trainer/trained_run.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/checkpoint.h"
#include "worker/trainer/trainer.h"

namespace gammalab::trainer {
namespace {

using testing::TempDir;
using testing::TrainedRun;
using testing::read_trained_run;
using testing::train_in_process;
using testing::tiny_job;
using testing::write_byte_corpus;

class Training : public ::testing::TestWithParam<std::string> {};

TEST_P(Training, TinyModelLossFalls) {
  TempDir data;
  write_byte_corpus(data.path);
  JobConfig c = tiny_job(data.path, GetParam());
  c.steps = 300;
  c.eval_every = 100;
  const TrainedRun r = train_in_process(c);
  ASSERT_EQ(r.code, 0);
  const auto& loss = r.series.at("train/loss");
  const double first = loss.begin()->second, final_loss = loss.rbegin()->second;
  EXPECT_EQ(loss.begin()->first, 10);
  EXPECT_EQ(loss.rbegin()->first, 300);
  EXPECT_GT(first, 2.5);
  EXPECT_LT(final_loss, 0.5 * first) << GetParam();
  const auto& val = r.series.at("val/loss");
  EXPECT_EQ(val.size(), 3u);  // steps 100, 200, 300
  EXPECT_LT(val.rbegin()->second, 0.5 * first);
  for (const char* m : {"lr", "grad_norm", "flops", "tokens_per_s", "wall_s"}) EXPECT_EQ(r.series.at(m).size(), loss.size()) << m;
  EXPECT_EQ(r.series.contains("scale_rms/input"), GetParam() != "none");
  // Output-Norm vectors: γ_fin in every variant with scale vectors (its default role), and unified's γ_a.
  EXPECT_EQ(r.series.contains("scale_rms/output"), GetParam() != "none");
}

INSTANTIATE_TEST_SUITE_P(Variants, Training, ::testing::Values("baseline", "none", "unified"));

TEST(Metrics, LinesFollowTheContract) {
  TempDir data;
  write_byte_corpus(data.path, 400);
  JobConfig c = tiny_job(data.path);
  c.steps = 25;
  c.log_every = 10;
  c.eval_every = 20;
  c.sharpness_every = 20;
  const TrainedRun r = train_in_process(c);
  ASSERT_EQ(r.code, 0);
  std::vector<std::int64_t> log_steps;
  for (const auto& [step, v] : r.series.at("train/loss")) log_steps.push_back(step);
  EXPECT_EQ(log_steps, (std::vector<std::int64_t>{10, 20, 25}));
  EXPECT_EQ(r.series.at("val/loss").size(), 2u);  // 20 and the last step
  EXPECT_EQ(r.series.at("sharpness").size(), 2u);
  EXPECT_GT(r.series.at("sharpness").at(20), 0.0);
  // "tokens" is tokens seen; flops cumulative.
  for (const auto& line : r.lines) {
    auto points = parse_metric_line(line);
    if (!points) {
      EXPECT_FALSE(nlohmann::json::parse(line).contains("metrics"));
      continue;
    }
    for (const auto& p : *points) EXPECT_EQ(p.tokens, p.step * c.batch_tokens);
  }
  EXPECT_DOUBLE_EQ(r.series.at("flops").at(20), 2 * r.series.at("flops").at(10));
}

TEST(Resume, KillAndResumeFromCheckpointMatchesExactly) {
  TempDir data, ref_dir, dir;
  write_byte_corpus(data.path, 800);
  JobConfig c = tiny_job(data.path, "unified");
  c.steps = 60;
  c.log_every = 1;
  c.eval_every = 15;
  c.ckpt_every = 30;
  c.micro_batch = 8;  // two micro-batches per step: gradient accumulation is part of the state too
  TrainerOptions o;
  o.ckpt_dir = ref_dir.path;
  const TrainedRun reference = train_in_process(c, o);
  ASSERT_EQ(reference.code, 0);

  o.ckpt_dir = dir.path;
  o.crash_after_step = 45;  // as if killed at 45: the last checkpoint is 30
  const TrainedRun first = train_in_process(c, o);
  ASSERT_EQ(first.code, exit_codes::kCrashed);
  ASSERT_EQ(read_checkpoint_meta(*latest_checkpoint(dir.path)).step, 30);
  o.crash_after_step = 0;
  const TrainedRun resumed = train_in_process(c, o);
  ASSERT_EQ(resumed.code, 0);
  const auto& ref_loss = reference.series.at("train/loss");
  const auto& loss = resumed.series.at("train/loss");
  // Steps 1-30 are replayed from the checkpoint (so no printed point is lost with a killed worker), 31-60 are
  // trained again: every step equals the uninterrupted run.
  ASSERT_EQ(loss.size(), ref_loss.size());
  ASSERT_EQ(loss.begin()->first, 1);
  for (std::int64_t step = 1; step <= 60; ++step) EXPECT_EQ(loss.at(step), ref_loss.at(step)) << "step " << step;
  EXPECT_EQ(resumed.series.at("val/loss").at(60), reference.series.at("val/loss").at(60));
  EXPECT_EQ(resumed.series.at("grad_norm").at(60), reference.series.at("grad_norm").at(60));
  // Training seconds continue the checkpoint's count: the replayed points keep theirs, the first trained step
  // after the resume comes later, and the count never goes back (wall_s is a clock, not a per-attempt timer).
  const auto& wall = resumed.series.at("wall_s");
  ASSERT_EQ(wall.size(), loss.size());
  EXPECT_EQ(wall.at(30), first.series.at("wall_s").at(30));
  EXPECT_GE(read_checkpoint_meta(*latest_checkpoint(dir.path)).train_seconds, wall.at(60));
  for (auto it = std::next(wall.begin()); it != wall.end(); ++it) EXPECT_GE(it->second, std::prev(it)->second) << it->first;
  EXPECT_GT(wall.at(31), wall.at(30));
  EXPECT_GT(wall.at(1), 0.0);
}

TEST(Resume, KeepsTheLastTwoCheckpointsAndLatestPointer) {
  TempDir data, dir;
  write_byte_corpus(data.path, 400);
  JobConfig c = tiny_job(data.path);
  c.steps = 40;
  c.ckpt_every = 10;
  TrainerOptions o;
  o.ckpt_dir = dir.path;
  ASSERT_EQ(train_in_process(c, o).code, 0);
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) {
    const auto name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
    if (name.starts_with("ckpt_") && name.ends_with(".safetensors")) {
      ++files;
      EXPECT_TRUE(std::filesystem::exists(e.path().string() + ".sum")) << name;  // its checksum beside it
    }
  }
  EXPECT_EQ(files, 2);
  EXPECT_EQ(read_checkpoint_meta(*latest_checkpoint(dir.path)).step, 40);
}

// The real binary: SIGTERM finishes the step, checkpoints, exits 75; a second run resumes and reproduces the
// uninterrupted run's losses.
TEST(Resume, SigtermThroughTheBinary) {
  TempDir data, dir;
  write_byte_corpus(data.path, 800);
  JobConfig c = tiny_job(data.path);
  c.steps = 400;
  c.log_every = 1;
  c.eval_every = 0;
  c.schedule.kind = ScheduleKind::Constant;  // the resumed runs are shorter; the LR must not depend on the total
  c.data.train = "train.bin";  // relative: resolved against --data-dir
  c.data.val = "val.bin";
  const auto config_file = dir.path / "job.json";
  std::ofstream(config_file) << to_json(c).dump();
  const auto ckpt = dir.path / "ckpt";

  int out_pipe[2];
  ASSERT_EQ(::pipe(out_pipe), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    ::execl(GAMMALAB_TRAIN_BINARY, GAMMALAB_TRAIN_BINARY, "run", "--config", config_file.c_str(), "--ckpt-dir",
            ckpt.c_str(), "--data-dir", data.path.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  FILE* out = ::fdopen(out_pipe[0], "r");
  std::string first_output;
  char buf[4096];
  bool signalled = false;
  while (std::fgets(buf, sizeof(buf), out) != nullptr) {
    first_output += buf;
    if (!signalled && std::string(buf).find("\"step\":3,") != std::string::npos) {
      ::kill(pid, SIGTERM);
      signalled = true;
    }
  }
  std::fclose(out);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), exit_codes::kStopped);
  const TrainedRun first = read_trained_run(first_output);
  const std::int64_t stopped_at = first.series.at("train/loss").rbegin()->first;
  ASSERT_LT(stopped_at, c.steps);
  ASSERT_EQ(read_checkpoint_meta(*latest_checkpoint(ckpt)).step, stopped_at);

  // Resume in-process from the binary's checkpoint; compare with an uninterrupted in-process run.
  c.steps = stopped_at + 20;
  TrainerOptions o;
  o.ckpt_dir = ckpt;
  o.data_dir = data.path;
  const TrainedRun resumed = train_in_process(c, o);
  ASSERT_EQ(resumed.code, 0);
  TrainerOptions fresh;
  fresh.data_dir = data.path;
  const TrainedRun reference = train_in_process(c, fresh);
  for (std::int64_t s = 1; s <= stopped_at; ++s) {
    EXPECT_EQ(first.series.at("train/loss").at(s), reference.series.at("train/loss").at(s)) << s;
  }
  for (std::int64_t s = stopped_at + 1; s <= c.steps; ++s) {
    EXPECT_EQ(resumed.series.at("train/loss").at(s), reference.series.at("train/loss").at(s)) << s;
  }
}

// Runs gammalab-train with `args` (its stderr in dir/err.txt) after the shell commands `before` (limits); its exit
// status (-1 unless it exited) and stderr.
std::pair<int, std::string> run_cli(const std::string& args, const std::filesystem::path& dir,
                                    const std::string& before = "") {
  const std::string cmd =
      before + std::string(GAMMALAB_TRAIN_BINARY) + " " + args + " 2>" + (dir / "err.txt").string();
  const int status = std::system(cmd.c_str());
  std::ifstream err(dir / "err.txt");
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1,
          std::string((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>())};
}

// An invalid config is permanent (core/exit_codes.h): EX_CONFIG, so the worker fails the job without retrying.
TEST(Cli, BadConfigExitsWithTheConfigStatusNamingTheField) {
  TempDir dir;
  const auto config_file = dir.path / "job.json";
  std::ofstream(config_file) << R"({"model": {"n_heads": 5, "d_model": 64}})";
  const auto [code, text] = run_cli("run --config " + config_file.string(), dir.path);
  EXPECT_EQ(code, exit_codes::kConfigError);
  EXPECT_NE(text.find("model.n_heads"), std::string::npos) << text;
}

// `device: cuda` where this LibTorch sees no GPU (a CPU build, or a CUDA build on a machine without one) is a
// configuration error naming the field, not a crash or a silent CPU run; where a GPU is visible, the job runs.
TEST(Cli, CudaWithoutAGpuIsAConfigErrorNamingTheDevice) {
  TempDir dir;
  write_byte_corpus(dir.path, 400);
  JobConfig c = tiny_job(dir.path);
  c.steps = 2;
  c.schedule.warmup_steps = 0;
  c.device = DeviceKind::Cuda;
  const auto config_file = dir.path / "job.json";
  std::ofstream(config_file) << to_json(c).dump();
  const auto [code, text] = run_cli("run --config " + config_file.string(), dir.path);
  if (torch::cuda::is_available()) {
    EXPECT_EQ(code, 0) << text;
  } else {
    EXPECT_EQ(code, exit_codes::kConfigError) << text;
    EXPECT_NE(text.find("device: cuda requested but no CUDA device is available"), std::string::npos) << text;
  }
}

// A model that does not fit the memory the trainer may use is permanent as well (core/exit_codes.h): 71, with
// the refused allocation in its log. The address space is capped at 3 GiB (ulimit -v, the same refusal a full
// machine gives), and the model's fp32 weights alone need about 13 GB.
TEST(Cli, AModelTooLargeForMemoryExitsWithTheOutOfMemoryStatus) {
  TempDir dir;
  write_byte_corpus(dir.path, 400);
  JobConfig c = tiny_job(dir.path);
  c.model.n_layers = 16;
  c.model.d_model = 4096;
  c.model.n_heads = 32;
  c.model.ffn_hidden = 16384;
  c.steps = 2;
  c.schedule.warmup_steps = 0;
  const auto config_file = dir.path / "job.json";
  std::ofstream(config_file) << to_json(c).dump();
  const auto [code, text] = run_cli("run --config " + config_file.string(), dir.path, "ulimit -v 3145728; ");
  EXPECT_EQ(code, exit_codes::kOutOfMemory) << text;
  EXPECT_NE(text.find("out of memory: "), std::string::npos) << text;
  EXPECT_NE(text.find("allocate"), std::string::npos) << text;
  EXPECT_EQ(text.find("frame #"), std::string::npos) << "no backtrace: " << text;
}

// The worker's way of running the trainer (--shared-root): a config reached through a link below the root is
// refused, naming the link; the file it points at is not quoted.
TEST(Cli, AConfigLinkUnderTheSharedRootIsRefused) {
  TempDir dir;
  const auto shared = dir.path / "shared", job = shared / "jobs" / "7";
  std::filesystem::create_directories(job / "ckpt");
  std::ofstream(dir.path / "secret.key") << "CANARY-PRIVATE-KEY";
  std::filesystem::create_symlink(dir.path / "secret.key", job / "config.json");
  const auto [code, text] = run_cli("run --config " + (job / "config.json").string() + " --ckpt-dir " +
                                        (job / "ckpt").string() + " --shared-root " + shared.string(),
                                    dir.path);
  EXPECT_EQ(code, exit_codes::kConfigError);
  EXPECT_NE(text.find("jobs/7/config.json: is a symbolic link (not followed)"), std::string::npos) << text;
  EXPECT_EQ(text.find("CANARY"), std::string::npos) << text;
  EXPECT_TRUE(std::filesystem::is_empty(job / "ckpt"));
}

// A run whose loss becomes non-finite ends as diverged (never as succeeded) at the step it was seen, says
// which loss and step in its log, and prints no non-finite metric line (the coordinator would refuse it).
void expect_diverged(const JobConfig& c, const std::string& out_text, const std::string& log_text, int code) {
  EXPECT_EQ(code, exit_codes::kDiverged) << log_text;
  const TrainedRun r = read_trained_run(out_text);
  std::int64_t diverged_step = -1;
  for (const auto& line : r.lines) {
    const auto j = nlohmann::json::parse(line);
    if (j.value("event", "") == "diverged") diverged_step = j.at("step").get<std::int64_t>();
    EXPECT_NE(j.value("event", ""), "done") << line;
    if (auto points = parse_metric_line(line)) {
      for (const auto& p : *points) EXPECT_TRUE(std::isfinite(p.value)) << line;
    }
  }
  ASSERT_GT(diverged_step, 0) << out_text;
  EXPECT_LE(diverged_step, c.steps);
  EXPECT_NE(log_text.find("diverged at step " + std::to_string(diverged_step) + ": train/loss is "), std::string::npos)
      << log_text;
}

TEST(Divergence, NonFiniteWeightsEndTheRunAsDivergedAtTheFirstLoggedStep) {
  TempDir data;
  write_byte_corpus(data.path, 400);
  JobConfig c = tiny_job(data.path);
  c.steps = 20;
  c.log_every = 5;
  std::ostringstream out, log;
  Trainer t(c, {}, out, log);
  {
    at::NoGradGuard no_grad;
    t.model().store().params().front().tensor.fill_(std::numeric_limits<double>::quiet_NaN());
  }
  const int code = t.run();
  expect_diverged(c, out.str(), log.str(), code);
  EXPECT_NE(log.str().find("diverged at step 5: train/loss is nan"), std::string::npos) << log.str();
}

TEST(Divergence, AnExplodingLearningRateEndsTheRunAsDiverged) {
  TempDir data;
  write_byte_corpus(data.path, 400);
  JobConfig c = tiny_job(data.path);
  c.steps = 50;
  c.log_every = 1;
  c.optim.lr = 1e30;
  c.optim.grad_clip = 0;
  c.schedule.warmup_steps = 0;
  std::ostringstream out, log;
  Trainer t(c, {}, out, log);
  const int code = t.run();
  expect_diverged(c, out.str(), log.str(), code);
}

}  // namespace
}  // namespace gammalab::trainer
