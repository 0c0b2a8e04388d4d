#pragma once
// Data-parallel gradient averaging: the parameters' gradients are packed into buckets (in the reverse of the
// parameters' order, which is roughly the order backward produces them), and each bucket's all-reduce starts
// from the gradient hooks as soon as its last gradient is known, so communication overlaps the rest of the
// backward pass. Only the backward of a step's last micro-batch is armed: earlier micro-batches accumulate
// locally and are folded in by the hooks (gradient accumulation costs no extra communication).
#include <cstdint>
#include <optional>
#include <vector>

#include <torch/torch.h>

#include "worker/trainer/parallel/collectives.h"

namespace gammalab::trainer {

class GradientSync {
 public:
  // Registers a hook on each tensor of `params` (leaves that require grad, all of one dtype and device).
  // bucket_bytes caps each bucket (a parameter larger than the cap has a bucket of its own).
  GradientSync(Collectives& collectives, std::vector<at::Tensor> params, std::int64_t bucket_bytes);
  ~GradientSync();
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  // Call before the backward of the step's last micro-batch: its hooks then start the all-reduces.
  void arm();
  // After that backward: starts what is left (parameters without a gradient in it), waits for every bucket,
  // and leaves in each parameter's .grad the mean over the ranks (undefined where no rank had a gradient, as
  // on one rank). `scalars` ride along with the last all-reduce and come back summed over the ranks.
  std::vector<double> finish(const std::vector<double>& scalars);

  int buckets() const { return static_cast<int>(buckets_.size()); }
  // Seconds spent in finish() waiting for the all-reduces of the last step (the part not hidden by backward).
  double last_wait_seconds() const { return last_wait_s_; }

 private:
  struct Slot {
    int bucket = 0;
    std::int64_t offset = 0, numel = 0;
    bool filled = false;
  };
  struct Bucket {
    at::Tensor flat;
    std::vector<int> params;
    int pending = 0;
    std::optional<PendingCollective> work;
  };
  void on_gradient(int param, const at::Tensor& grad);
  void fill(int param, const at::Tensor& incoming);
  void launch_ready();

  Collectives& collectives_;
  std::vector<at::Tensor> params_;
  std::vector<Slot> slots_;
  std::vector<Bucket> buckets_;
  at::Tensor had_grad_;  // per parameter: 1 where this rank had a gradient; summed with `scalars`
  int next_launch_ = 0;
  bool armed_ = false;
  double last_wait_s_ = 0;
};

}  // namespace gammalab::trainer
