#pragma once
// Muon for 2-D hidden matrices: Nesterov momentum, Newton–Schulz orthogonalisation, update scaled by
// 0.2·sqrt(max(rows, cols)) to match AdamW's update RMS, decoupled weight decay. Matched so, it takes AdamW's
// LR (Moonlight's rule): the optimizer passes optim.lr unless optim.muon_lr overrides it.
#include <torch/torch.h>

namespace gammalab::trainer {

// Quintic Newton–Schulz iteration with (a, b, c) = (3.4445, −4.7750, 2.0315); bf16 on CUDA, fp32 on CPU.
at::Tensor newton_schulz(const at::Tensor& g, int steps);

void muon_update(at::Tensor& param, const at::Tensor& grad, at::Tensor& momentum_buffer, double lr, double momentum,
                 double weight_decay, int ns_steps);

}  // namespace gammalab::trainer
