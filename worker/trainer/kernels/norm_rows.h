#pragma once
// Row kernels of the scale-free RMSNorm, shared by the fused CPU autograd functions (rms_norm, swiglu,
// qkv_heads). A row of n floats is normalised in groups of `group` consecutive entries (group == n: the whole
// row; group == head_dim: per head); rstd holds 1/rms per group. The weight w has n entries, or `group` entries
// shared by every group when `shared_w` (QK-norm's per-head γ).
#include <cmath>
#include <cstdint>
#include <vector>

#include <torch/torch.h>

#include "worker/trainer/kernels/cpu_vector.h"

namespace gammalab::trainer {

// One group, inline so that kernels built as GAMMALAB_CPU_CLONES compile it for their target.
namespace norm_group {

inline float inverse_rms(const float* x, std::int64_t n, float eps) {
  return 1.f / std::sqrt(cpu::sum_of_products(x, x, nullptr, n) / float(n) + eps);
}

// y = w ⊙ x · inv.
inline void apply(const float* x, const float* w, float inv, float* y, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) y[j] = x[j] * inv * w[j];
}

// gx = inv·(gy⊙w − x·c) and gw += gy⊙x·inv (gw may be null), given dot = Σ gy⊙w⊙x and c = dot·inv²/n. gx may be
// gy (in place): each entry of gy is read before gx's is written, in explicit vectors so that the compiler need
// not prove the arrays apart.
inline void backward_given_dot(const float* x, const float* w, const float* gy, float inv, float dot, float* gx,
                               float* gw, std::int64_t n) {
  using cpu::vec;
  const float c = dot * inv * inv / float(n);
  std::int64_t j = 0;
  for (; j + cpu::kWidth <= n; j += cpu::kWidth) {
    const cpu::Vec8 g = *vec(gy + j), xj = *vec(x + j);
    if (gw != nullptr) *vec(gw + j) += g * xj * inv;
    *vec(gx + j) = inv * (g * *vec(w + j) - xj * c);
  }
  for (; j < n; ++j) {
    const float g = gy[j];
    if (gw != nullptr) gw[j] += g * x[j] * inv;
    gx[j] = inv * (g * w[j] - x[j] * c);
  }
}

}  // namespace norm_group

// y = w ⊙ x · rstd per group.
void norm_row_forward(const float* x, const float* w, float* y, float* rstd, std::int64_t n, std::int64_t group,
                      float eps, bool shared_w = false);

// y = w ⊙ x · rstd per group with a known rstd (a backward pass recomputing the forward's output).
void norm_row_apply(const float* x, const float* w, float* y, const float* rstd, std::int64_t n, std::int64_t group,
                    bool shared_w = false);

// gx = ∂(Σ gy·y)/∂x given the forward's rstd; gw += gy ⊙ x · rstd (skipped when gw is null).
void norm_row_backward(const float* x, const float* w, const float* gy, const float* rstd, float* gx, float* gw,
                       std::int64_t n, std::int64_t group, bool shared_w = false);

// Gradient of a weight of size n summed over rows processed by several threads: each thread adds into its own
// partial, so no locks and a deterministic sum for a fixed thread count.
class WeightGradPartials {
 public:
  WeightGradPartials(std::int64_t n, bool wanted);
  float* for_this_thread();  // null when not wanted
  at::Tensor sum(const at::TensorOptions& options) const;  // undefined when not wanted

 private:
  std::int64_t n_;
  bool wanted_;
  std::vector<float> partial_;
};

// The hand-written kernels cover float32 tensors on the CPU; everything else takes the plain ATen ops.
inline bool cpu_kernel_fits(const at::Tensor& t) { return t.device().is_cpu() && t.scalar_type() == at::kFloat; }

// A float32 CPU weight of n ones (cached per thread) for the scale-free Norms.
const at::Tensor& unit_weight(std::int64_t n);

// Rows per call of `at::parallel_for` for rows of n floats: about 16k floats of work each.
inline std::int64_t row_grain(std::int64_t n) { return std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(n, 1)); }

}  // namespace gammalab::trainer
