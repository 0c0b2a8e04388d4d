#include "worker/trainer/model/branch.h"

namespace gammalab::trainer {

at::Tensor project(const ParamStore& store, const at::Tensor& x, const std::vector<const Branch*>& branches,
                   const ProjectOptions& options) {
  bool shared_in = true;
  for (const Branch* b : branches) shared_in = shared_in && b->in_scale == branches.front()->in_scale;

  std::vector<at::Tensor> weights;
  bool any_out = false;
  for (const Branch* b : branches) {
    at::Tensor w = store[b->weight];
    if (!shared_in && b->in_scale >= 0) w = w * store.gamma(b->in_scale).unsqueeze(0);
    weights.push_back(w);
    any_out = any_out || b->out_scale >= 0;
  }
  at::Tensor w = weights.size() == 1 ? weights.front() : at::cat(weights, 0);
  if (shared_in && branches.front()->in_scale >= 0) w = w * store.gamma(branches.front()->in_scale).unsqueeze(0);
  if (any_out && !options.dual_norm) {
    std::vector<at::Tensor> out_gammas;
    for (const Branch* b : branches) out_gammas.push_back(store.gamma(b->out_scale));
    at::Tensor g = out_gammas.size() == 1 ? out_gammas.front() : at::cat(out_gammas, 0);
    w = w * g.unsqueeze(1);
  }
  return at::linear(x, w);
}

}  // namespace gammalab::trainer
