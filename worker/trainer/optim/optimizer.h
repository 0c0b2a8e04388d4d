#pragma once
// The training optimizer: AdamW (decoupled weight decay) on its groups, Muon on hidden matrices when
// configured, global gradient-norm clipping. Its state is a flat list of named tensors for checkpoints.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "core/job_config.h"
#include "worker/trainer/model/model.h"
#include "worker/trainer/optim/param_groups.h"

namespace gammalab::trainer {

class Optimizer {
 public:
  Optimizer(Model& model, const JobConfig& config);

  // Clips gradients to optim.grad_clip (if > 0) and returns the pre-clip global norm as a 0-d tensor
  // (no host sync).
  at::Tensor clip_gradients();
  // One update with the peak learning rates times `lr_multiplier`.
  void step(double lr_multiplier);
  void zero_grad();

  std::int64_t steps_taken() const { return t_; }
  std::map<std::string, at::Tensor> state() const;  // "adam_m/<param>", "adam_v/<param>", "muon/<param>"
  // Throws, naming the entry, if `state` lacks one or has one of the wrong shape.
  void check_state(const std::map<std::string, at::Tensor>& state) const;
  void load_state(const std::map<std::string, at::Tensor>& state, std::int64_t steps_taken);
  const std::vector<ParamGroup>& groups() const { return groups_; }

 private:
  std::vector<std::pair<at::Tensor, at::Tensor>> state_copies(const std::map<std::string, at::Tensor>& state) const;

  Model& model_;
  OptimSpec spec_;
  std::vector<ParamGroup> groups_;
  std::vector<at::Tensor> m_, v_;  // AdamW moments (Muon: m_ is the momentum buffer)
  std::int64_t t_ = 0;
};

}  // namespace gammalab::trainer
