#include "worker/trainer/kernels/norm_rows.h"

#include <ATen/Parallel.h>
#include <map>

namespace gammalab::trainer {

namespace {

GAMMALAB_CPU_CLONES void group_forward(const float* x, const float* w, float* y, float* rstd, std::int64_t n, float eps) {
  *rstd = norm_group::inverse_rms(x, n, eps);
  norm_group::apply(x, w, *rstd, y, n);
}

GAMMALAB_CPU_CLONES void group_apply(const float* x, const float* w, float* y, float inv, std::int64_t n) {
  norm_group::apply(x, w, inv, y, n);
}

GAMMALAB_CPU_CLONES void group_backward(const float* x, const float* w, const float* gy, float inv, float* gx, float* gw,
                                        std::int64_t n) {
  norm_group::backward_given_dot(x, w, gy, inv, cpu::sum_of_products(gy, w, x, n), gx, gw, n);
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
