#include "worker/trainer/branch.h"

#include "worker/trainer/rms_norm.h"

namespace gammalab::trainer {

std::vector<at::Tensor> project(const ParamStore& store, const at::Tensor& x, const std::vector<const Branch*>& branches,
                                const ProjectOptions& options) {
  bool shared_in = true;
  for (const Branch* b : branches) shared_in = shared_in && b->in_scale == branches.front()->in_scale;

  std::vector<at::Tensor> weights;
  std::vector<at::Tensor> out_gammas;
  std::vector<std::int64_t> sizes;
  bool any_out = false;
  for (const Branch* b : branches) {
    at::Tensor w = store[b->weight];
    if (!shared_in && b->in_scale >= 0) w = w * store.gamma(b->in_scale).unsqueeze(0);
    weights.push_back(w);
    sizes.push_back(w.size(0));
    any_out = any_out || b->out_scale >= 0;
  }
  at::Tensor w = weights.size() == 1 ? weights.front() : at::cat(weights, 0);
  if (shared_in && branches.front()->in_scale >= 0) w = w * store.gamma(branches.front()->in_scale).unsqueeze(0);
  if (any_out && !options.dual_norm) {
    for (const Branch* b : branches) out_gammas.push_back(store.gamma(b->out_scale));
    at::Tensor g = out_gammas.size() == 1 ? out_gammas.front() : at::cat(out_gammas, 0);
    w = w * g.unsqueeze(1);
  }
  at::Tensor y = at::linear(x, w);
  std::vector<at::Tensor> outs = branches.size() == 1 ? std::vector<at::Tensor>{y} : y.split_with_sizes(sizes, -1);
  if (options.dual_norm) {
    for (std::size_t i = 0; i < branches.size(); ++i) {
      const Branch* b = branches[i];
      const std::int64_t group = b->norm_group > 0 ? b->norm_group : sizes[i];
      outs[i] = rms_norm(outs[i], group, options.eps, store.gamma(b->out_scale), options.fused);
    }
  }
  return outs;
}

}  // namespace gammalab::trainer
