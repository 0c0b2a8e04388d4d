#pragma once
// What one Pre-Norm computes (docs/variants.md, "The 2026 arms"). The paper's is the scale-free RMSNorm n(h)
// whose γ the maps after it fold into their weights (branch.h). The rival arms replace it:
//   rms          n(h)                                   γ folded into the next maps
//   ln_scaling   n(h) / √l  (layer l from 1)            γ folded
//   pre_affine   n(λ ⊙ h)                               γ folded
//   peri_ln      n(h), and γ_out ⊙ n(·) on each block's output (Layer::attn_out_norm, ffn_out_norm)
//   seednorm     (tanh(h·β) α + γ) ⊙ n(h)               applied here
//   gated        u ⊙ σ(W_up SiLU(W_down u)), u = γ ⊙ n(h)
//   dyt          γ ⊙ tanh(a h) + b                      a one scalar
//   derf         γ ⊙ erf(a h + s) + b                   a, s scalars
// The first four keep y = γ ⊙ f(h), so γ stays in the weights and a model built with them costs what the
// baseline costs; the others apply their γ here and the maps after them get none of their own.
#include <torch/torch.h>

#include "core/job_config.h"
#include "worker/trainer/model/param_store.h"

namespace gammalab::trainer {

// Whether a Pre-Norm of this kind leaves its γ to the maps after it (γ ⊙ f(h)).
inline bool folds_gamma(NormKind kind) {
  return kind == NormKind::Rms || kind == NormKind::LnScaling || kind == NormKind::PreAffine ||
         kind == NormKind::PeriLn;
}

struct PreNorm {
  NormKind kind = NormKind::Rms;
  int gamma = -1;   // the site's γ (a scale vector) where this Pre-Norm applies it itself (!folds_gamma)
  int affine = -1;  // pre_affine: λ (a scale vector)
  int alpha = -1, shift = -1, bias = -1;  // dyt, derf: a, s (scalars) and b [d]; seednorm: α [d] in alpha
  int dot = -1;                           // seednorm: β [d], h·β one scalar per token
  int gate_down = -1, gate_up = -1;       // gated: W_down [r, d], W_up [d, r]
  double depth_factor = 1.0;              // ln_scaling: 1/√l
};

// h: [..., d]. `fused`: the RMSNorm's one-pass kernels (first derivatives only; rms_norm.h).
at::Tensor pre_norm(const ParamStore& store, const PreNorm& site, const at::Tensor& h, double eps, bool fused);

}  // namespace gammalab::trainer
