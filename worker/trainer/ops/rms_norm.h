#pragma once
// Scale-free RMSNorm n(x) = x / sqrt(mean(x^2) + eps) over groups of `group` consecutive entries of the last
// dimension (group == last dim: the whole vector; group == head_dim: per head), optionally times a weight of
// the last dimension's size.
#include <torch/torch.h>

namespace gammalab::trainer {

// `fused`: one-pass forward and backward kernels (first derivatives only); otherwise plain ATen ops that can
// be differentiated twice (Hessian-vector products).
at::Tensor rms_norm(const at::Tensor& x, std::int64_t group, double eps, const at::Tensor& weight, bool fused);

}  // namespace gammalab::trainer
