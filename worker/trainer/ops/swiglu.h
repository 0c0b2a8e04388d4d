#pragma once
// SwiGLU's gating on the fused gate|up projection p = [gate | up]: h = SiLU(a) ⊙ b with a = gate, b = up, or under
// DNP a = γ_g ⊙ Norm(gate), b = γ_u ⊙ Norm(up). On float32 CPU tensors one kernel does it in a single pass: of what
// lies between p and h only the Norms' 1/rms per row is stored, and the backward writes p's gradient as one tensor
// (no split/cat). Elsewhere (CUDA, Hessian-vector products) the plain ATen composition runs.
#include <vector>

#include <torch/torch.h>

namespace gammalab::trainer {

struct SwigluNorm {
  at::Tensor gate_gamma, up_gamma;              // undefined = scale-free
  std::int64_t gate_group = 0, up_group = 0;    // Norm group size, 0 = the whole half
  double eps = 1e-5;
};

// gate_up: [..., 2F]. norm: null = plain SwiGLU. Returns [..., F].
at::Tensor swiglu(const at::Tensor& gate_up, const SwigluNorm* norm, bool fused);

// The CPU kernel's row loops come in builds that differ in how they take e^x for σ: SLEEF's AVX2 or SSE2 functions
// (x86-64 with SLEEF), or std::exp lane by lane (elsewhere).
enum class SwigluBuild { kAvx2, kSse2, kPortable };
// Those this binary and CPU can run, fastest first; the first is used unless use_swiglu_build says otherwise.
std::vector<SwigluBuild> swiglu_builds();
// Pins one build (tests and benchmarks compare them); throws std::invalid_argument for one not in swiglu_builds().
void use_swiglu_build(SwigluBuild build);

}  // namespace gammalab::trainer
