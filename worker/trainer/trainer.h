#pragma once
// The training loop of `gammalab-train run`: data, model, optimizer, schedule, metrics, evaluation,
// checkpoints, exact resume and graceful stop.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <vector>

#include "core/exit_codes.h"
#include "core/job_config.h"
#include "core/metric_replay.h"
#include "core/shared_root_files.h"
#include "worker/trainer/data/data_loader.h"
#include "worker/trainer/parallel/collectives.h"
#include "worker/trainer/parallel/gradient_sync.h"
#include "worker/trainer/parallel/rank_env.h"
#include "worker/trainer/metrics_logger.h"
#include "worker/trainer/model/model.h"
#include "worker/trainer/optim/optimizer.h"

namespace gammalab::trainer {

struct TrainerOptions {
  std::filesystem::path ckpt_dir;             // empty = no checkpoints
  // The shared root ckpt_dir lies below (the worker's): no link below it is followed on the way to ckpt_dir.
  // Empty: ckpt_dir as given may be a link (configuration). Either way no link inside ckpt_dir is followed.
  std::filesystem::path shared_root;
  std::filesystem::path data_dir;             // base of relative data paths (empty: $GAMMALAB_DATA_DIR, else cwd)
  const std::atomic<bool>* stop = nullptr;    // set by the SIGTERM handler
  std::int64_t stop_after_step = 0;           // in-process stand-in for a SIGTERM arriving during this step
  std::int64_t crash_after_step = 0;          // in-process stand-in for SIGKILL: return after it, no checkpoint
  // This process's rank of a data-parallel job (docs/distributed.md); world_size 1: no process group.
  RankSpec ranks;
  std::int64_t bucket_bytes = 25 << 20;  // gradient all-reduce bucket cap (PyTorch DDP's default)
  // A cooldown branch (docs/branches.md): the parent's checkpoint its first attempt starts from, below
  // shared_root when that is set. Its own checkpoints come first: a branch resumes from them like any run.
  std::filesystem::path start_from;
  // Identities (core/uid.h), from the lease: this job's, written into every checkpoint and required of those it
  // resumes from (checkpoint_resume_check.h); and the job's whose checkpoint start_from is, required of it.
  // Empty (a run by hand): not checked.
  std::string job_uid;
  std::string start_from_uid;
  // Steps whose checkpoints are written whatever ckpt_every says, and never rotated away: the branch points
  // that this run's branches start from. Each is announced, once written, by a metric line of
  // metric_names::kBranchPoint.
  std::vector<std::int64_t> keep_checkpoints_at;
  // What the coordinator already stores of this job's metrics (the lease's, core/metric_replay.h): never
  // printed again, neither from a checkpoint nor by the steps trained again after it (metrics_logger.h).
  StoredMetrics stored;
  // Set by the worker as it relays (stored_step_feed.h): every metric line before this step is stored, so a
  // checkpoint need not keep it. Null (no worker): a checkpoint keeps every line since the run began.
  const std::atomic<std::int64_t>* stored_before = nullptr;
};

// `path` (the config's `field`) under data_dir, else $GAMMALAB_DATA_DIR; with neither, `path` as it is. Under a
// data directory a path that is absolute or climbs out with ".." is a ConfigError naming the field.
std::filesystem::path resolve_data_path(const char* field, const std::string& path, const std::filesystem::path& data_dir);

class Trainer {
 public:
  // Validates the config (throws ConfigError) and opens the data (throws std::runtime_error).
  Trainer(const JobConfig& config, TrainerOptions options, std::ostream& metrics_out, std::ostream& log);
  ~Trainer();
  // The loop: runs to config.steps (resuming from the newest checkpoint in ckpt_dir), evaluating, logging
  // and checkpointing on their schedules. Returns exit_codes::kSucceeded, kStopped, kDiverged (a non-finite
  // loss) or (crash_after_step) kCrashed.
  int run();
  Model& model() { return *model_; }
  // Seconds the steps of run() spent waiting for gradient all-reduces after their backward (0 on one rank).
  double allreduce_wait_seconds() const { return allreduce_wait_s_; }

 private:
  // What one optimizer step leaves for the log, still on the device (read only on logging steps).
  struct StepResult {
    at::Tensor loss_sum;   // the micro-batches' cross-entropies, summed
    at::Tensor grad_norm;  // before clipping
  };
  // The last logging step, for the throughput since then.
  struct LogMark {
    std::chrono::steady_clock::time_point time;
    std::int64_t tokens = 0;
  };

  // Loads the newest checkpoint in ckpt_dir, else the branch point of start_from, if any; returns the step it
  // was taken after (0 without one).
  std::int64_t resume();
  // The parent's checkpoint of a branch: loads it after checking that it can start this run (core/branch_point.h).
  std::int64_t start_from_branch_point();
  // One optimizer step: forward and backward over the micro-batches, gradient clipping, the update at
  // the LR multiplier `lr_mult`.
  StepResult train_step(double lr_mult);
  // The train loss, LR, gradient norm, FLOPs, throughput, training seconds and scale RMS of `step` into `values`.
  void log_train(std::int64_t step, const StepResult& result, double lr_mult, std::map<std::string, double>& values);
  // The val loss and sharpness of `step` into `values`, when they are due.
  void evaluate_due(std::int64_t step, std::map<std::string, double>& values);
  // The checkpoint due after `step`, and the stop request; returns the exit status when the run ends here.
  std::optional<int> checkpoint_or_stop(std::int64_t step);
  // Before `values` of `step` are printed: a non-finite loss ends the run (exit_codes::kDiverged, the metric,
  // value and step in the log); any other non-finite value is left out of the line, which the coordinator
  // would refuse whole.
  std::optional<int> stop_if_diverged(std::int64_t step, std::map<std::string, double>& values);
  double evaluate();
  void checkpoint(std::int64_t step);
  const shared_root::Dir& checkpoint_dir();  // ckpt_, opened on first use
  std::map<std::string, double> scale_rms() const;
  bool is_rank0() const { return options_.ranks.rank == 0; }
  // A step in options_.keep_checkpoints_at: its checkpoint is written, kept and announced.
  bool is_branch_point(std::int64_t step) const;
  // Ranks above 0 take rank 0's parameters, optimizer state and data position (after rank 0's resume).
  std::int64_t sync_from_rank0(std::int64_t step);

  JobConfig config_;
  TrainerOptions options_;
  MetricsLogger metrics_;
  std::ostream& log_;
  std::unique_ptr<TokenDataset> train_, val_;
  std::unique_ptr<BatchSampler> sampler_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<Collectives> collectives_;  // world_size > 1 only
  // ckpt_dir, opened once by rank 0 on first use (checkpoint_dir()) and held for the run: a link planted at a
  // directory above it later cannot move where checkpoints go.
  std::optional<shared_root::Dir> ckpt_;
  std::unique_ptr<GradientSync> grad_sync_;
  at::Tensor eval_set_;  // [JobConfig::eval_windows(), T + 1]
  at::Device device_ = at::kCPU;
  // Sequences of the global batch this rank trains on, per forward pass, and passes per step.
  std::int64_t rank_sequences_ = 0, micro_ = 0, n_micro_ = 0;
  // Sequences per forward pass of evaluation: the config's, whatever the world size, so val loss is the same.
  std::int64_t eval_micro_ = 0;
  bool stop_agreed_ = false;  // a stop requested on any rank during the last step
  double allreduce_wait_s_ = 0;
  double flops_per_token_ = 0;
  LogMark last_log_;
  // Training seconds of the steps before this process resumed (the checkpoint's), and when it started training.
  double seconds_before_ = 0;
  std::chrono::steady_clock::time_point run_start_;
  double train_seconds() const;
};

}  // namespace gammalab::trainer
