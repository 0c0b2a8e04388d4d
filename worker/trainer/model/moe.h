#pragma once
// Llama-MoE feed-forward: top-k token-choice routing over SwiGLU experts, with the OLMoE auxiliary losses
// (load balancing and router z-loss). The router reads the same normalised input as the experts' gate/up
// (γ_ffn ⊙ n(h) when the norm is shared), or γ_router ⊙ n(h) under HG when a router vector is configured.
#include <vector>

#include <torch/torch.h>

#include "worker/trainer/model/ffn.h"

namespace gammalab::trainer {

struct Moe {
  int router = -1;     // [E, d]
  int router_in = -1;  // scale vector applied to the router's input, -1 = none
  std::vector<Ffn> experts;
  int top_k = 2;
  double aux_loss_weight = 0.01;
  double z_loss_weight = 0.001;
};

// The router's view of xf [N, d]: logits and probabilities [N, E], always float32. Under bf16 autocast the
// softmax over experts, the top-k choice and the z-loss (logsumexp squared) lose too much in bf16 (OLMoE and
// ST-MoE compute the router in float32), so the inputs are cast explicitly and autocast is off for these ops.
struct RouterOutput {
  at::Tensor logits, probs;
};
RouterOutput route(const ParamStore& store, const Moe& moe, const at::Tensor& xf);

// x: [B, T, d]. Adds the weighted auxiliary losses of this layer to `aux` (a scalar tensor).
at::Tensor moe_forward(const ParamStore& store, const Moe& moe, const at::Tensor& x, const ProjectOptions& options,
                       at::Tensor& aux);

}  // namespace gammalab::trainer
