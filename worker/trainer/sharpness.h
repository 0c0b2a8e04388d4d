#pragma once
// Largest Hessian eigenvalue of the training loss on one batch, by power iteration on Hessian-vector products
// (double backward through the twice-differentiable forward).
#include <torch/torch.h>

#include "worker/trainer/model/model.h"

namespace gammalab::trainer {

double estimate_sharpness(const Model& model, const at::Tensor& tokens, const at::Tensor& targets, int iterations,
                          std::uint64_t seed);

}  // namespace gammalab::trainer
