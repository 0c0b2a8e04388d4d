#pragma once
// Causal multi-head self-attention with grouped-query option, optional QK-norm and RoPE, following a Pre-Norm.
#include <torch/torch.h>

#include "worker/trainer/model/branch.h"
#include "worker/trainer/ops/rope.h"

namespace gammalab::trainer {

struct AttentionShape {
  std::int64_t n_heads = 1, n_kv_heads = 1, head_dim = 1;
};

struct Attention {
  Branch q, k, v;
  int wo = -1;
  bool qk_norm = false;
  int q_norm = -1, k_norm = -1;  // QK-norm scale vectors (Output-Norm), -1 = scale-free
};

struct BlockContext {
  const RopeTables* rope = nullptr;
  const at::Tensor* mask = nullptr;  // additive causal mask [T, T]
  ProjectOptions project;
  bool twice_differentiable = false;
};

// x = Pre-Norm output [B, T, d]; returns the attention branch output [B, T, d] (before the residual add).
at::Tensor attention_forward(const ParamStore& store, const Attention& attn, const AttentionShape& shape,
                             const at::Tensor& x, const BlockContext& ctx);

}  // namespace gammalab::trainer
