// Data-parallel training with real ranks (gammalab-train processes, c10d's Gloo over loopback): the loss curve
// does not depend on the number of ranks, checkpoints move between world sizes, and a dead rank stops the job.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/config_error.h"
#include "core/exit_codes.h"
#include "core/metric.h"
#include "core/rendezvous_line.h"
#include "tests/trainer/trained_run.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/checkpoint.h"
#include "worker/trainer/parallel/collectives.h"
#include "worker/trainer/parallel/rank_env.h"
#include "worker/trainer/trainer.h"

extern char** environ;

namespace gammalab::trainer {
namespace {

using testing::TempDir;
using testing::TrainedRun;
using testing::read_trained_run;
using testing::train_in_process;
using testing::tiny_job;
using testing::write_byte_corpus;

using Series = std::map<std::string, std::map<std::int64_t, double>>;  // metric -> step -> value

// One rank in-process, expected to succeed: its metrics.
Series train_one_rank(const JobConfig& c, const std::filesystem::path& ckpt = {}) {
  TrainerOptions o;
  o.ckpt_dir = ckpt;
  const TrainedRun run = train_in_process(c, o);
  EXPECT_EQ(run.code, exit_codes::kSucceeded) << run.log;
  return run.series;
}

struct Child {
  pid_t pid = -1;
  FILE* out = nullptr;  // its stdout
  std::filesystem::path err;
};

// gammalab-train with `args`, the extra environment `env`, stdout on a pipe and stderr into `err`.
Child spawn_train(const std::vector<std::string>& args, const std::vector<std::string>& env,
                  const std::filesystem::path& err) {
  int pipe_fd[2];
  EXPECT_EQ(::pipe(pipe_fd), 0);
  std::vector<std::string> argv_s{GAMMALAB_TRAIN_BINARY};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment is built before fork: the child only makes async-signal-safe calls.
  std::vector<std::string> env_s = env;
  for (char** e = environ; *e != nullptr; ++e) env_s.emplace_back(*e);  // ours after: the extras win
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fd[1], 1);
    ::close(pipe_fd[0]);
    ::close(pipe_fd[1]);
    const int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    ::execve(GAMMALAB_TRAIN_BINARY, argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(pipe_fd[1]);
  return {pid, ::fdopen(pipe_fd[0], "r"), err};
}

std::string read_all(FILE* f) {
  std::string s;
  char buf[4096];
  while (std::fgets(buf, sizeof(buf), f) != nullptr) s += buf;
  std::fclose(f);
  return s;
}

std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Waits for the child at most `limit`; kills it and returns -1 if it is still running then (a hang).
int wait_bounded(pid_t pid, std::chrono::seconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < end) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return -1;
}

struct BinaryRun {
  int code = 0;
  Series series;
  std::string err;
};

BinaryRun run_binary(const std::filesystem::path& dir, const JobConfig& c, const std::vector<std::string>& extra = {}) {
  const auto config_file = dir / "job.json";
  std::ofstream(config_file) << to_json(c).dump();
  std::vector<std::string> args{"run", "--config", config_file.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  Child child = spawn_train(args, {}, dir / "stderr.txt");
  const std::string out = read_all(child.out);
  BinaryRun r;
  r.code = wait_bounded(child.pid, std::chrono::seconds(600));
  r.series = read_trained_run(out).series;
  r.err = file_text(child.err);
  return r;
}

// Float32 sums in another order: equal to a few ulps per step, growing slowly over steps.
void expect_same_curve(const std::map<std::int64_t, double>& got, const std::map<std::int64_t, double>& want,
                       std::int64_t from_step = 1) {
  std::size_t compared = 0;
  for (const auto& [step, value] : want) {
    if (step < from_step) continue;
    ASSERT_TRUE(got.count(step)) << "step " << step;
    EXPECT_NEAR(got.at(step), value, 2e-4 * std::max(1.0, std::abs(value))) << "step " << step;
    ++compared;
  }
  EXPECT_GT(compared, 0u);
}

JobConfig small_job(const std::filesystem::path& data, const std::string& variant, OptimizerKind optimizer) {
  JobConfig c = tiny_job(data, variant);
  c.steps = 8;
  c.log_every = 1;
  c.schedule.kind = ScheduleKind::Constant;
  c.schedule.warmup_steps = 0;
  c.optim.name = optimizer;
  c.optim.lr = optimizer == OptimizerKind::Muon ? 2e-2 : 1e-2;
  return c;
}

struct Case {
  std::string variant;
  OptimizerKind optimizer;
  int micro_batch;  // 0: each rank's whole share at once; 4: two micro-batches per rank (accumulation)
};

class DataParallel : public ::testing::TestWithParam<Case> {};

// 2 ranks with half the batch each against 1 rank with the whole batch (16 sequences per step): the same
// train loss, gradient norm and val loss at every step. With micro_batch 4 each rank accumulates 2 micro-batches
// and the 1-rank run 4: accumulation composes with the ranks.
TEST_P(DataParallel, TwoRanksGiveTheCurveOfOne) {
  ASSERT_TRUE(collectives_available());
  TempDir data, dir;
  write_byte_corpus(data.path, 800);
  JobConfig c = small_job(data.path, GetParam().variant, GetParam().optimizer);
  c.micro_batch = GetParam().micro_batch;
  const Series one = train_one_rank(c);
  c.world_size = 2;
  const BinaryRun two = run_binary(dir.path, c);
  ASSERT_EQ(two.code, exit_codes::kSucceeded) << two.err;
  EXPECT_NE(two.err.find("started ranks 0 to 1 of 2"), std::string::npos) << two.err;
  expect_same_curve(two.series.at("train/loss"), one.at("train/loss"));
  expect_same_curve(two.series.at("val/loss"), one.at("val/loss"));
  expect_same_curve(two.series.at("grad_norm"), one.at("grad_norm"));
}

INSTANTIATE_TEST_SUITE_P(VariantsAndOptimizers, DataParallel,
                         ::testing::Values(Case{"baseline", OptimizerKind::AdamW, 0}, Case{"unified", OptimizerKind::AdamW, 4},
                                           Case{"baseline", OptimizerKind::Muon, 4}, Case{"unified", OptimizerKind::Muon, 0},
                                           // The 2026 arms' own parameters across ranks: GatedNorm's matrices
                                           // under Muon, Derf's scalars and Peri-LN's output vectors under AdamW.
                                           Case{"gated", OptimizerKind::Muon, 4}, Case{"derf", OptimizerKind::AdamW, 0},
                                           Case{"peri_ln", OptimizerKind::AdamW, 4}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return info.param.variant + (info.param.optimizer == OptimizerKind::Muon ? "_muon" : "_adamw") +
                                  "_micro" + std::to_string(info.param.micro_batch);
                         });

// A checkpoint written by 2 ranks (rank 0 alone writes it) is resumed by 1 rank, which continues the curve of
// an uninterrupted 1-rank run.
// The held-out set is data.eval_windows windows, whatever the micro batch and the number of ranks: the val loss
// of a model that has barely moved from its init (an lr of 1e-12) is the same to float-summation order for micro batches of 2, 4 and 16 sequences and for 2 ranks.
// It failed when the set was eval_batches micro batches: 2 batches of 2 windows against 2 of 16.
TEST(EvalSet, TheSameForEveryMicroBatchAndWorldSize) {
  ASSERT_TRUE(collectives_available());
  TempDir data, dir;
  write_byte_corpus(data.path, 800);
  JobConfig c = small_job(data.path, "baseline", OptimizerKind::AdamW);
  c.optim.lr = 1e-12;  // the weights stay (to float precision) those of the init: every val loss is of one model
  c.eval_every = 1;
  c.steps = 2;
  c.data.eval_windows = 24;  // not a multiple of every micro batch: a short last chunk counts by its windows
  c.micro_batch = 16;
  const double reference = train_one_rank(c).at("val/loss").at(1);
  for (int micro : {2, 4, 8}) {
    c.micro_batch = micro;
    EXPECT_NEAR(train_one_rank(c).at("val/loss").at(1), reference, 1e-6) << "micro_batch " << micro;
  }
  c.micro_batch = 4;
  c.world_size = 2;
  const BinaryRun two = run_binary(dir.path, c);
  ASSERT_EQ(two.code, exit_codes::kSucceeded) << two.err;
  EXPECT_NEAR(two.series.at("val/loss").at(1), reference, 1e-6);
  EXPECT_NE(two.err.find("held-out set: the first 24 windows of 32 tokens of data.val"), std::string::npos) << two.err;
}

// A config written before eval_windows keeps its set (eval_batches micro batches); giving both is refused.
TEST(EvalSet, TheOlderEvalBatchesKeepsItsMeaning) {
  TempDir data;
  write_byte_corpus(data.path, 200);
  JobConfig c = small_job(data.path, "baseline", OptimizerKind::AdamW);
  c.data.eval_windows.reset();
  EXPECT_EQ(c.eval_windows(), kDefaultEvalWindows);
  c.data.eval_batches = 3;
  c.micro_batch = 4;
  EXPECT_EQ(c.eval_windows(), 12);
  c.micro_batch = 0;
  EXPECT_EQ(c.eval_windows(), 3 * c.sequences_per_step());
  c.data.eval_windows = 8;
  try {
    validate(c);
    ADD_FAILURE() << "both eval_windows and eval_batches were accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "data.eval_batches: give data.eval_windows only (eval_batches is the older form, which depends on "
              "micro_batch)");
  }
}

TEST(DataParallelResume, CheckpointOfTwoRanksResumesOnOne) {
  TempDir data, dir;
  write_byte_corpus(data.path, 800);
  JobConfig c = small_job(data.path, "unified", OptimizerKind::AdamW);
  c.steps = 12;
  const Series uninterrupted = train_one_rank(c);

  JobConfig first = c;
  first.steps = 6;
  first.world_size = 2;
  const auto ckpt = dir.path / "ckpt";
  const BinaryRun two = run_binary(dir.path, first, {"--ckpt-dir", ckpt.string()});
  ASSERT_EQ(two.code, exit_codes::kSucceeded) << two.err;
  ASSERT_EQ(read_checkpoint_meta(*latest_checkpoint(ckpt)).step, 6);

  const Series resumed = train_one_rank(c, ckpt);
  expect_same_curve(resumed.at("train/loss"), uninterrupted.at("train/loss"), 7);
  expect_same_curve(resumed.at("val/loss"), uninterrupted.at("val/loss"), 7);
}

// A job over 2 nodes, started as gammalab-worker starts it on each: node 0's launcher hosts the store at a port
// the kernel picks and prints the rendezvous line; node 1's joins at that port. Rank 0 (on node 0) logs the
// 1-rank run's curve; node 1 prints nothing.
TEST(DataParallelNodes, TwoNodesOfOneRankGiveTheCurveOfOne) {
  TempDir data, dir;
  write_byte_corpus(data.path, 800);
  JobConfig c = small_job(data.path, "unified", OptimizerKind::AdamW);
  const Series one = train_one_rank(c);
  c.world_size = 2;
  c.nodes = 2;
  const auto config_file = dir.path / "job.json";
  std::ofstream(config_file) << to_json(c).dump();
  const std::vector<std::string> common{"run", "--config", config_file.string(), "--world-size", "2", "--nodes", "2"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  Child node0 = spawn_train(with({"--node-rank", "0", "--master-addr", "127.0.0.1"}), {}, dir.path / "node0.txt");
  char line[4096];
  ASSERT_NE(std::fgets(line, sizeof line, node0.out), nullptr) << file_text(node0.err);
  std::string first(line);
  if (!first.empty() && first.back() == '\n') first.pop_back();
  const std::optional<std::uint16_t> port = parse_rendezvous_line(first);
  ASSERT_TRUE(port) << "node 0's first line is its rendezvous: " << first;
  Child node1 = spawn_train(with({"--node-rank", "1", "--master-addr", "127.0.0.1", "--master-port",
                                  std::to_string(*port)}),
                            {}, dir.path / "node1.txt");
  const std::string out0 = read_all(node0.out), out1 = read_all(node1.out);
  ASSERT_EQ(wait_bounded(node0.pid, std::chrono::seconds(600)), exit_codes::kSucceeded) << file_text(node0.err);
  ASSERT_EQ(wait_bounded(node1.pid, std::chrono::seconds(600)), exit_codes::kSucceeded) << file_text(node1.err);
  EXPECT_NE(file_text(node1.err).find("started ranks 1 to 1 of 2"), std::string::npos) << file_text(node1.err);
  EXPECT_EQ(out1, "") << "only rank 0 prints metric lines";
  const Series two = read_trained_run(out0).series;
  expect_same_curve(two.at("train/loss"), one.at("train/loss"));
  expect_same_curve(two.at("val/loss"), one.at("val/loss"));
}

// The flags of a job over several nodes are checked before anything starts.
TEST(DataParallelNodes, BadNodeFlagsAreRefused) {
  JobConfig c;
  c.world_size = 4;
  auto error_of = [&](RankFlags f, const JobConfig& config) -> std::string {
    try {
      plan_ranks(f, config);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  RankFlags f;
  f.world_size = 4;
  f.nodes = 2;
  EXPECT_EQ(error_of(f, c), "--node-rank: is required with 2 nodes");
  f.node_rank = 2;
  EXPECT_EQ(error_of(f, c), "--node-rank: must be in [0, 1], got 2");
  f.node_rank = 1;
  EXPECT_EQ(error_of(f, c), "--master-addr: is required on node 1: where node 0 hosts the store");
  f.master_addr = "10.0.0.1";
  EXPECT_EQ(error_of(f, c), "--master-port: is required on node 1: where node 0 hosts the store");
  f.master_port = 29500;
  const RankPlan plan = plan_ranks(f, c);
  EXPECT_EQ(plan.kind, RankPlan::Kind::Launcher);
  EXPECT_EQ(plan.spec.nodes, 2);
  EXPECT_EQ(plan.spec.node_rank, 1);
  f.nodes = 3;
  EXPECT_EQ(error_of(f, c), "--nodes: 3 nodes do not divide the world size of 4 ranks");
  JobConfig two_nodes = c;
  two_nodes.nodes = 2;
  f.nodes = 4;
  EXPECT_EQ(error_of(f, two_nodes), "nodes: the job config asks for 2 nodes but --nodes is 4");
  EXPECT_EQ(error_of(RankFlags{}, two_nodes),
            "nodes: a job of 2 nodes is started on each node with --world-size, --nodes and --node-rank "
            "(gammalab-worker does so), or by a launcher");
  RankFlags single;
  single.node_rank = 0;
  EXPECT_EQ(error_of(single, c), "--node-rank: is for a job of several nodes (--nodes)");
}

// A port nobody listens on now (the kernel's pick for a socket we close at once).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// Ranks started as an outside launcher (torchrun) would: rank 1 killed with SIGKILL mid-run makes rank 0 fail
// with an error naming the failed collective, instead of waiting for it forever.
TEST(DataParallelFailure, ARankKilledStopsTheOtherWithAnError) {
  TempDir data, dir;
  write_byte_corpus(data.path, 800);
  JobConfig c = small_job(data.path, "baseline", OptimizerKind::AdamW);
  c.steps = 100000;  // runs until the kill
  const auto config_file = dir.path / "job.json";
  std::ofstream(config_file) << to_json(c).dump();
  const std::string port = std::to_string(free_port());
  auto env = [&](int rank) {
    return std::vector<std::string>{"RANK=" + std::to_string(rank), "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
                                    "MASTER_PORT=" + port};
  };
  const std::vector<std::string> args{"run", "--config", config_file.string(), "--dist-timeout", "60"};
  Child rank0 = spawn_train(args, env(0), dir.path / "rank0.txt");
  Child rank1 = spawn_train(args, env(1), dir.path / "rank1.txt");
  std::fclose(rank1.out);
  char buf[4096];
  bool killed = false;
  std::string out;
  while (std::fgets(buf, sizeof(buf), rank0.out) != nullptr) {
    out += buf;
    if (!killed && std::string(buf).find("\"step\":3,") != std::string::npos) {
      ::kill(rank1.pid, SIGKILL);
      killed = true;
    }
  }
  std::fclose(rank0.out);
  ASSERT_TRUE(killed) << file_text(rank0.err);
  // Bounded well below the 60 s timeout: a closed connection is noticed at once, the timeout is the backstop.
  const int code0 = wait_bounded(rank0.pid, std::chrono::seconds(120));
  int status1 = 0;
  ::waitpid(rank1.pid, &status1, 0);
  EXPECT_TRUE(WIFSIGNALED(status1));
  ASSERT_NE(code0, -1) << "rank 0 hung after its peer died";
  EXPECT_NE(code0, exit_codes::kSucceeded);
  EXPECT_NE(file_text(rank0.err).find("a collective failed"), std::string::npos) << file_text(rank0.err);
  EXPECT_GE(read_trained_run(out).series.at("train/loss").rbegin()->first, 3);
}

// The pids of `pid`'s children, in the order it started them.
std::vector<pid_t> children_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
  std::vector<pid_t> out;
  for (pid_t c; in >> c;) out.push_back(c);
  return out;
}

// A job whose ranks the trainer started itself: rank 1 killed with SIGKILL fails the whole job (status 137, the
// killed rank's), and running it again resumes from rank 0's last checkpoint and ends with the curve of an
// uninterrupted 1-rank run.
TEST(DataParallelFailure, AKilledRankFailsTheJobAndTheRerunContinuesTheCurve) {
  TempDir data, dir;
  write_byte_corpus(data.path, 800);
  JobConfig c = small_job(data.path, "baseline", OptimizerKind::AdamW);
  c.steps = 60;
  c.ckpt_every = 2;
  const Series reference = train_one_rank(c);
  c.world_size = 2;
  const auto config_file = dir.path / "job.json";
  std::ofstream(config_file) << to_json(c).dump();
  const auto ckpt = dir.path / "ckpt";
  const std::vector<std::string> args{"run", "--config", config_file.string(), "--ckpt-dir", ckpt.string()};
  Child job = spawn_train(args, {}, dir.path / "first.txt");
  char buf[4096];
  bool killed = false;
  while (std::fgets(buf, sizeof(buf), job.out) != nullptr) {
    if (!killed && std::string(buf).find("\"step\":3,") != std::string::npos) {
      const std::vector<pid_t> ranks = children_of(job.pid);
      ASSERT_EQ(ranks.size(), 2u);
      ::kill(ranks[1], SIGKILL);
      killed = true;
    }
  }
  std::fclose(job.out);
  ASSERT_TRUE(killed);
  EXPECT_EQ(wait_bounded(job.pid, std::chrono::seconds(120)), exit_codes::kCrashed) << file_text(job.err);
  EXPECT_NE(file_text(job.err).find("rank 1 ended with status 137"), std::string::npos) << file_text(job.err);
  const std::int64_t saved = read_checkpoint_meta(*latest_checkpoint(ckpt)).step;
  ASSERT_LT(saved, c.steps);

  const BinaryRun rerun = run_binary(dir.path, c, {"--ckpt-dir", ckpt.string()});
  ASSERT_EQ(rerun.code, exit_codes::kSucceeded) << rerun.err;
  EXPECT_NE(rerun.err.find("at step " + std::to_string(saved)), std::string::npos) << rerun.err;
  expect_same_curve(rerun.series.at("train/loss"), reference.at("train/loss"));
  expect_same_curve(rerun.series.at("val/loss"), reference.at("val/loss"));
}

// Launcher variables are input: a rank outside the world is refused, naming the variable and the range.
TEST(DataParallelConfig, BadLauncherVariablesAreRefused) {
  TempDir data, dir;
  write_byte_corpus(data.path, 200);
  JobConfig c = small_job(data.path, "baseline", OptimizerKind::AdamW);
  const auto config_file = dir.path / "job.json";
  std::ofstream(config_file) << to_json(c).dump();
  Child child = spawn_train({"run", "--config", config_file.string()},
                            {"RANK=2", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1", "MASTER_PORT=1"}, dir.path / "err.txt");
  read_all(child.out);
  EXPECT_EQ(wait_bounded(child.pid, std::chrono::seconds(60)), exit_codes::kConfigError);
  EXPECT_NE(file_text(child.err).find("$RANK: must be in [0, 1], got 2"), std::string::npos) << file_text(child.err);

  c.world_size = 3;  // 16 sequences per step do not split over 3 ranks
  try {
    validate(c);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "world_size: 3 ranks do not divide the 16 sequences per step");
  }
}

}  // namespace
}  // namespace gammalab::trainer
