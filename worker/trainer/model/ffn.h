#pragma once
// SwiGLU feed-forward: W_down (SiLU(W_gate v) ⊙ W_up v), with the scale vectors of its branches.
#include <torch/torch.h>

#include "worker/trainer/model/branch.h"

namespace gammalab::trainer {

struct Ffn {
  Branch gate, up;
  int down = -1;
};

at::Tensor ffn_forward(const ParamStore& store, const Ffn& ffn, const at::Tensor& x, const ProjectOptions& options);

}  // namespace gammalab::trainer
