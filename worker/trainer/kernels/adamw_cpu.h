#pragma once
// Single-pass CPU kernels for the optimizer step on float32 arrays (no LibTorch here, so that this file can be
// built with -fno-math-errno, which the precompiled LibTorch header does not allow). ATen's composition of AdamW
// makes about eight passes over each tensor, with a temporary, and as many dispatches; for the many small scale
// vectors of a variant like unified the dispatches were most of the optimizer's time.
#include <cstdint>

namespace gammalab::trainer {

struct AdamWScalars {
  float decay_factor;      // 1 - lr·λ
  float beta1, beta2;
  float bias_correction2;  // 1 - β2^t
  float step_size;         // -lr / (1 - β1^t)
  float eps;
};

// p ← p·decay_factor + step_size · m' / (√(v' / bc2) + eps), with m' = m + (1-β1)(g - m), v' = β2·v + (1-β2)·g²
// (the order of ATen's mul_, lerp_, addcmul_ and addcdiv_).
void adamw_update(float* p, const float* g, float* m, float* v, std::int64_t n, const AdamWScalars& s);

// x ← x·factor (gradient clipping).
void scale_in_place(float* x, std::int64_t n, float factor);

// Σ x² over n floats: float sums over chunks, added in double.
double sum_of_squares(const float* x, std::int64_t n);

}  // namespace gammalab::trainer
