#pragma once
// SwiGLU's gating on the fused gate|up projection p = [gate | up]: h = SiLU(a) ⊙ b with a = gate, b = up, or under
// DNP a = γ_g ⊙ Norm(gate), b = γ_u ⊙ Norm(up). On float32 CPU tensors one kernel does it in a single pass: of what
// lies between p and h only the Norms' 1/rms per row is stored, and the backward writes p's gradient as one tensor
// (no split/cat). Elsewhere (CUDA, Hessian-vector products) the plain ATen composition runs.
#include <torch/torch.h>

namespace gammalab::trainer {

struct SwigluNorm {
  at::Tensor gate_gamma, up_gamma;              // undefined = scale-free
  std::int64_t gate_group = 0, up_group = 0;    // Norm group size, 0 = the whole half
  double eps = 1e-5;
};

// gate_up: [..., 2F]. norm: null = plain SwiGLU. Returns [..., F].
at::Tensor swiglu(const at::Tensor& gate_up, const SwigluNorm* norm, bool fused);

}  // namespace gammalab::trainer
