#pragma once
// The training loop of `gammalab-train run`: data, model, optimizer, schedule, metrics, evaluation,
// checkpoints, exact resume and graceful stop.
#include <atomic>
#include <filesystem>
#include <memory>
#include <ostream>

#include "core/exit_codes.h"
#include "core/job_config.h"
#include "worker/trainer/data/data_loader.h"
#include "worker/trainer/metrics_logger.h"
#include "worker/trainer/model/model.h"
#include "worker/trainer/optim/optimizer.h"

namespace gammalab::trainer {

struct TrainerOptions {
  std::filesystem::path ckpt_dir;             // empty = no checkpoints
  std::filesystem::path data_dir;             // base of relative data paths (empty: $GAMMALAB_DATA_DIR, else cwd)
  const std::atomic<bool>* stop = nullptr;    // set by the SIGTERM handler
  std::int64_t stop_after_step = 0;           // in-process stand-in for a SIGTERM arriving during this step
  std::int64_t crash_after_step = 0;          // in-process stand-in for SIGKILL: return after it, no checkpoint
};

// A relative path against data_dir, else $GAMMALAB_DATA_DIR, else the current directory.
std::filesystem::path resolve_data_path(const std::string& path, const std::filesystem::path& data_dir);

class Trainer {
 public:
  // Validates the config (throws ConfigError) and opens the data (throws std::runtime_error).
  Trainer(const JobConfig& config, TrainerOptions options, std::ostream& metrics_out, std::ostream& log);
  ~Trainer();
  // Runs to config.steps (resuming from the newest checkpoint in ckpt_dir). Returns exit_codes::kSucceeded, kStopped or (crash_after_step) kCrashed.
  int run();
  Model& model() { return *model_; }

 private:
  double evaluate();
  void checkpoint(std::int64_t step);
  std::map<std::string, double> scale_rms() const;

  JobConfig config_;
  TrainerOptions options_;
  MetricsLogger metrics_;
  std::ostream& log_;
  std::unique_ptr<TokenDataset> train_, val_;
  std::unique_ptr<BatchSampler> sampler_;
  std::unique_ptr<Model> model_;
  std::unique_ptr<Optimizer> optimizer_;
  at::Tensor eval_set_;  // [eval_batches * micro, T + 1]
  at::Device device_ = at::kCPU;
  std::int64_t micro_ = 0, n_micro_ = 0;
};

}  // namespace gammalab::trainer
