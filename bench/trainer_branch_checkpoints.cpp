// The checkpoint cost of cooldown branches (docs/branches.md): one WSD run trained with the branch points its
// sweep file gives (each written whatever ckpt_every says, and kept past rotation) against the same run without
// them, in the same process, alternating. Prints the checkpoints each writes, the bytes each leaves on disk, the
// median wall time of the whole run and the ratio.
//   bench_trainer_branch_checkpoints [--preset P] [--steps N] [--ckpt-every N] [--repeats N] [--threads N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core/sweep/sweep.h"
#include "worker/trainer/data/data_shard.h"
#include "worker/trainer/torch_compat.h"
#include "worker/trainer/trainer.h"

namespace {

using namespace gammalab;
using namespace gammalab::trainer;

struct Measured {
  std::vector<double> wall_ms;
  int checkpoints = 0;             // written in one run
  std::uintmax_t bytes_kept = 0;   // on disk after one run
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// One whole run into an emptied directory.
void run_once(const JobConfig& config, TrainerOptions options, Measured& m) {
  std::filesystem::remove_all(options.ckpt_dir);
  std::filesystem::create_directories(options.ckpt_dir);
  std::ostringstream out, log;
  const auto start = std::chrono::steady_clock::now();
  Trainer trainer(config, options, out, log);
  if (trainer.run() != 0) throw std::runtime_error("the run failed:\n" + log.str());
  m.wall_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  m.checkpoints = 0;
  for (std::size_t at = log.str().find("checkpoint "); at != std::string::npos; at = log.str().find("checkpoint ", at + 1)) {
    ++m.checkpoints;
  }
  m.bytes_kept = 0;
  for (const auto& entry : std::filesystem::directory_iterator(options.ckpt_dir)) m.bytes_kept += entry.file_size();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Checkpoint cost of cooldown branch points"};
  std::string preset = "tiny-0.5m";
  int steps = 120, ckpt_every = 30, repeats = 3, threads = 1;
  app.add_option("--preset", preset, "model preset")->capture_default_str();
  app.add_option("--steps", steps, "the run's steps")->capture_default_str()->check(CLI::Range(40, 100000));
  app.add_option("--ckpt-every", ckpt_every, "periodic checkpoints")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--repeats", repeats, "runs of each, alternating")->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--threads", threads, "intra-op threads")->capture_default_str()->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  set_cpu_threads(threads);

  const auto dir = std::filesystem::temp_directory_path() / ("gammalab_bench_branches_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::mt19937 rng(7);
  std::vector<std::uint32_t> tokens(1 << 20);
  for (auto& t : tokens) t = rng() % 256;
  write_shard(dir / "train.bin", tokens);

  // The run as a sweep file with branches gives it: its branch points come from the real expansion.
  const std::string yaml = "name: bench\nbase:\n  model: {preset: " + preset + "}\n  optim: {lr: 0.003}\n" +
                           "  schedule: {kind: wsd, warmup_steps: 10, decay_steps: " + std::to_string(steps / 5) + "}\n" +
                           "  data: {train: train.bin}\n  batch_tokens: 4096\n  steps: " + std::to_string(steps) +
                           "\n  log_every: 10\n  ckpt_every: " + std::to_string(ckpt_every) +
                           "\n  threads: " + std::to_string(threads) +
                           "\nbranches: {fraction: [0.25, 0.5, 0.75], decay: 0.2}\n";
  const Sweep sweep = expand_sweep(yaml, "bench.yaml", {});
  const SweepJob& run = sweep.jobs.at(0);
  TrainerOptions plain;
  plain.ckpt_dir = dir / "plain";
  plain.data_dir = dir;
  TrainerOptions branched = plain;
  branched.ckpt_dir = dir / "branched";
  branched.keep_checkpoints_at = run.branch_points;

  Measured without, with;
  for (int i = 0; i < repeats; ++i) {
    run_once(run.config, plain, without);
    run_once(run.config, branched, with);
  }
  std::filesystem::remove_all(dir);

  std::string points;
  for (const auto p : run.branch_points) points += (points.empty() ? "" : ", ") + std::to_string(p);
  std::printf("%s, %d steps of 4096 tokens, ckpt_every %d, branch points %s; %d runs of each, medians\n",
              preset.c_str(), steps, ckpt_every, points.c_str(), repeats);
  std::printf("%-22s %12s %14s %12s\n", "", "checkpoints", "bytes kept", "wall ms");
  std::printf("%-22s %12d %14ju %12.0f\n", "without branch points", without.checkpoints, without.bytes_kept,
              median(without.wall_ms));
  std::printf("%-22s %12d %14ju %12.0f\n", "with branch points", with.checkpoints, with.bytes_kept,
              median(with.wall_ms));
  std::printf("ratio (with / without): checkpoints %.2f, bytes kept %.2f, wall %.3f\n",
              double(with.checkpoints) / double(without.checkpoints),
              double(with.bytes_kept) / double(without.bytes_kept), median(with.wall_ms) / median(without.wall_ms));
  return 0;
}
