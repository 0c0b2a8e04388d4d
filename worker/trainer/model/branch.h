#pragma once
// The linear maps that follow a Pre-Norm (q, k, v, gate, up) with their scale vectors:
//   before: W (γ_b ⊙ x)      after: γ_a ⊙ (W x)      dual: γ_a ⊙ W (γ_b ⊙ x)
//   dual_norm: γ_a ⊙ Norm(W (γ_b ⊙ x))
// Input-side and (outside dual_norm) output-side vectors are folded into the weight, diag(γ_a) W diag(γ_b),
// which costs O(out·in) per step instead of O(tokens·in): every variant then runs one matmul per group of
// branches, the same as the baseline. dual_norm's Norm and γ_a are applied by the consumer of the projection
// (qkv_heads, swiglu), fused with what it does next.
#include <vector>

#include <torch/torch.h>

#include "worker/trainer/model/param_store.h"

namespace gammalab::trainer {

struct Branch {
  int weight = -1;     // [out, in]
  int in_scale = -1;   // γ_b (may be shared with sibling branches), -1 = none
  int out_scale = -1;  // γ_a, -1 = none
  std::int64_t norm_group = 0;  // dual_norm: group size of the Norm over the output (0 = whole output)
};

struct ProjectOptions {
  bool dual_norm = false;
  double eps = 1e-5;
  bool fused = true;
};

// x: [..., in]. Returns the branches' outputs side by side, [..., Σ out_c], without dual_norm's Norm and γ_a.
at::Tensor project(const ParamStore& store, const at::Tensor& x, const std::vector<const Branch*>& branches,
                   const ProjectOptions& options);

}  // namespace gammalab::trainer
