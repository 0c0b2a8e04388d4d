#include "worker/trainer/norm_rows.h"

#include <ATen/Parallel.h>
#include <cmath>
#include <map>

namespace gammalab::trainer {

namespace {

// 32 independent partial sums let the compiler vectorise the reductions without -ffast-math, into four vector
// accumulators: one would make every add wait for the previous one. target_clones adds an AVX2 + FMA build
// (x86-64-v3) chosen at load time where the CPU has it.
constexpr int kLanes = 32;
#define GAMMALAB_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))

GAMMALAB_CLONES void group_forward(const float* x, const float* w, float* y, float* rstd, std::int64_t n, float eps) {
  float acc[kLanes] = {};
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int k = 0; k < kLanes; ++k) acc[k] += x[j + k] * x[j + k];
  }
  float ss = 0.f;
  for (; j < n; ++j) ss += x[j] * x[j];
  for (int k = 0; k < kLanes; ++k) ss += acc[k];
  const float inv = 1.f / std::sqrt(ss / float(n) + eps);
  *rstd = inv;
  for (j = 0; j < n; ++j) y[j] = x[j] * inv * w[j];
}

GAMMALAB_CLONES void group_apply(const float* x, const float* w, float* y, float inv, std::int64_t n) {
  for (std::int64_t j = 0; j < n; ++j) y[j] = x[j] * inv * w[j];
}

GAMMALAB_CLONES void group_backward(const float* x, const float* w, const float* gy, float inv, float* gx, float* gw,
                                    std::int64_t n) {
  float acc[kLanes] = {};
  std::int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes) {
    for (int k = 0; k < kLanes; ++k) acc[k] += gy[j + k] * w[j + k] * x[j + k];
  }
  float dot = 0.f;
  for (; j < n; ++j) dot += gy[j] * w[j] * x[j];
  for (int k = 0; k < kLanes; ++k) dot += acc[k];
  const float c = dot * inv * inv / float(n);
  if (gw != nullptr) {
    for (j = 0; j < n; ++j) {
      gx[j] = inv * (gy[j] * w[j] - x[j] * c);
      gw[j] += gy[j] * x[j] * inv;
    }
  } else {
    for (j = 0; j < n; ++j) gx[j] = inv * (gy[j] * w[j] - x[j] * c);
  }
}

}  // namespace

void norm_row_forward(const float* x, const float* w, float* y, float* rstd, std::int64_t n, std::int64_t group,
                      float eps, bool shared_w) {
  for (std::int64_t g = 0, o = 0; o < n; ++g, o += group) {
    group_forward(x + o, shared_w ? w : w + o, y + o, rstd + g, group, eps);
  }
}

void norm_row_apply(const float* x, const float* w, float* y, const float* rstd, std::int64_t n, std::int64_t group,
                    bool shared_w) {
  for (std::int64_t g = 0, o = 0; o < n; ++g, o += group) group_apply(x + o, shared_w ? w : w + o, y + o, rstd[g], group);
}

void norm_row_backward(const float* x, const float* w, const float* gy, const float* rstd, float* gx, float* gw,
                       std::int64_t n, std::int64_t group, bool shared_w) {
  const std::int64_t step = shared_w ? 0 : group;
  for (std::int64_t g = 0, o = 0; o < n; ++g, o += group) {
    group_backward(x + o, w + g * step, gy + o, rstd[g], gx + o, gw != nullptr ? gw + g * step : nullptr, group);
  }
}

WeightGradPartials::WeightGradPartials(std::int64_t n, bool wanted)
    : n_(n), wanted_(wanted), partial_(wanted ? static_cast<std::size_t>(at::get_num_threads() * n) : 0, 0.f) {}

float* WeightGradPartials::for_this_thread() {
  return wanted_ ? partial_.data() + static_cast<std::size_t>(at::get_thread_num() * n_) : nullptr;
}

at::Tensor WeightGradPartials::sum(const at::TensorOptions& options) const {
  if (!wanted_) return {};
  at::Tensor out = at::zeros({n_}, options);
  float* o = out.data_ptr<float>();
  const std::int64_t threads = static_cast<std::int64_t>(partial_.size()) / std::max<std::int64_t>(n_, 1);
  for (std::int64_t t = 0; t < threads; ++t) {
    for (std::int64_t j = 0; j < n_; ++j) o[j] += partial_[static_cast<std::size_t>(t * n_ + j)];
  }
  return out;
}

const at::Tensor& unit_weight(std::int64_t n) {
  thread_local std::map<std::int64_t, at::Tensor> cache;
  at::Tensor& t = cache[n];
  if (!t.defined()) t = at::ones({n}, at::kFloat);
  return t;
}

}  // namespace gammalab::trainer
