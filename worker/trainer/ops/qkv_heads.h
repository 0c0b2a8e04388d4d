#pragma once
// From the fused q|k|v projection [B, T, (H + 2·Hkv)·hd] to q [B, H, T, hd] and k, v [B, Hkv, T, hd], with RoPE on
// q and k and, per branch, the Norms that come before it: DNP's γ_a ⊙ Norm (whole branch or per head) and QK-norm.
// On float32 CPU tensors with at most one Norm per branch, each of whose groups holds whole heads, one kernel does
// the split, Norm, RoPE and head layout in a single pass, and its backward writes the projection's gradient as one tensor; elsewhere the plain ATen
// composition runs.
#include <array>
#include <vector>

#include <torch/torch.h>

#include "worker/trainer/ops/rope.h"

namespace gammalab::trainer {

struct HeadNorm {
  at::Tensor gamma;        // the branch's width, or `group` entries shared by every group; undefined = scale-free
  std::int64_t group = 0;  // 0 = the whole branch
};

struct QkvLayout {
  std::int64_t n_heads = 1, n_kv_heads = 1, head_dim = 1;
};

struct QkvHeads {
  at::Tensor q, k, v;
};

// norms[c]: the Norms of branch c (q, k, v), applied in order.
QkvHeads qkv_heads(const at::Tensor& qkv, const QkvLayout& layout, const std::array<std::vector<HeadNorm>, 3>& norms,
                   double eps, const RopeTables& rope, bool fused);

}  // namespace gammalab::trainer
