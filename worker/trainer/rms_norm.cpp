#include "worker/trainer/rms_norm.h"

#include <ATen/Parallel.h>
#include <cmath>
#include <map>
#include <vector>

namespace gammalab::trainer {

namespace {

at::Tensor rms_norm_plain(const at::Tensor& x, std::int64_t group, double eps, const at::Tensor& weight) {
  const std::int64_t n = x.size(-1);
  at::Tensor y;
  if (group == n) {
    y = x * at::rsqrt(x.pow(2).mean(-1, /*keepdim=*/true) + eps);
  } else {
    auto shape = x.sizes().vec();
    shape.back() = n / group;
    shape.push_back(group);
    at::Tensor g = x.reshape(shape);
    y = (g * at::rsqrt(g.pow(2).mean(-1, true) + eps)).reshape(x.sizes());
  }
  return weight.defined() ? y * weight : y;
}

// Row stride of x seen as [rows, n] with unit stride inside a row, or -1 if its layout does not allow it.
// Covers contiguous tensors and the column slices that split() makes of a fused projection.
std::int64_t row_stride(const at::Tensor& x) {
  if (x.dim() < 2 || x.stride(-1) != 1) return x.dim() == 1 ? x.size(0) : -1;
  for (std::int64_t i = x.dim() - 3; i >= 0; --i) {
    if (x.stride(i) != x.stride(i + 1) * x.size(i + 1)) return -1;
  }
  return x.stride(-2);
}

// Row kernels. Eight independent partial sums let the compiler vectorise the reductions without
// -ffast-math; target_clones adds an AVX2 build chosen at load time where the CPU has it.
#define GAMMALAB_CLONES __attribute__((target_clones("avx2", "default")))

GAMMALAB_CLONES void norm_group_forward(const float* x, const float* w, float* y, float* rstd, std::int64_t n, float eps) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += x[j + k] * x[j + k];
  }
  float ss = 0.f;
  for (; j < n; ++j) ss += x[j] * x[j];
  for (int k = 0; k < 8; ++k) ss += acc[k];
  const float inv = 1.f / std::sqrt(ss / float(n) + eps);
  *rstd = inv;
  for (j = 0; j < n; ++j) y[j] = x[j] * inv * w[j];
}

GAMMALAB_CLONES void norm_group_backward(const float* x, const float* w, const float* gy, float inv, float* gx, float* gw,
                                         std::int64_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int k = 0; k < 8; ++k) acc[k] += gy[j + k] * w[j + k] * x[j + k];
  }
  float dot = 0.f;
  for (; j < n; ++j) dot += gy[j] * w[j] * x[j];
  for (int k = 0; k < 8; ++k) dot += acc[k];
  const float c = dot * inv * inv / float(n);
  for (j = 0; j < n; ++j) gx[j] = inv * (gy[j] * w[j] - x[j] * c);
  if (gw != nullptr) {
    for (j = 0; j < n; ++j) gw[j] += gy[j] * x[j] * inv;
  }
}

// y = w ⊙ n(x) in one pass per row; saves 1/rms per group for the backward pass.
class FusedRmsNorm : public torch::autograd::Function<FusedRmsNorm> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor x, at::Tensor weight, std::int64_t group,
                            double eps) {
    std::int64_t rs = row_stride(x);
    if (rs < 0) {
      x = x.contiguous();
      rs = x.size(-1);
    }
    const std::int64_t n = x.size(-1), rows = x.numel() / n, groups = n / group;
    at::Tensor y = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
    at::Tensor rstd = at::empty({rows, groups}, x.options());
    const float* xp = x.data_ptr<float>();
    const float* wp = weight.data_ptr<float>();
    float* yp = y.data_ptr<float>();
    float* rp = rstd.data_ptr<float>();
    const float feps = static_cast<float>(eps);
    at::parallel_for(0, rows, std::max<std::int64_t>(1, 16384 / n), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        const float* xr = xp + r * rs;
        float* yr = yp + r * n;
        for (std::int64_t g = 0; g < groups; ++g) {
          norm_group_forward(xr + g * group, wp + g * group, yr + g * group, rp + r * groups + g, group, feps);
        }
      }
    });
    ctx->save_for_backward({x, weight, rstd});
    ctx->saved_data["group"] = group;
    return y;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& x = saved[0];
    const at::Tensor& weight = saved[1];
    const at::Tensor& rstd = saved[2];
    const std::int64_t group = ctx->saved_data["group"].toInt();
    const at::Tensor gy = grads[0].contiguous();
    std::int64_t rs = row_stride(x);
    const std::int64_t n = x.size(-1), rows = x.numel() / n, groups = n / group;
    at::Tensor gx = at::empty(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
    const bool want_gw = ctx->needs_input_grad(1);
    const int threads = at::get_num_threads();
    std::vector<float> gw_partial(want_gw ? static_cast<std::size_t>(threads) * n : 0, 0.f);
    const float* xp = x.data_ptr<float>();
    const float* wp = weight.data_ptr<float>();
    const float* rp = rstd.data_ptr<float>();
    const float* gp = gy.data_ptr<float>();
    float* gxp = gx.data_ptr<float>();
    at::parallel_for(0, rows, std::max<std::int64_t>(1, 16384 / n), [&](std::int64_t begin, std::int64_t end) {
      float* gw = want_gw ? gw_partial.data() + static_cast<std::size_t>(at::get_thread_num()) * n : nullptr;
      for (std::int64_t r = begin; r < end; ++r) {
        for (std::int64_t g = 0; g < groups; ++g) {
          norm_group_backward(xp + r * rs + g * group, wp + g * group, gp + r * n + g * group, rp[r * groups + g],
                              gxp + r * n + g * group, gw != nullptr ? gw + g * group : nullptr, group);
        }
      }
    });
    at::Tensor gw_out;
    if (want_gw) {
      gw_out = at::zeros({n}, x.options());
      float* o = gw_out.data_ptr<float>();
      for (int t = 0; t < threads; ++t) {
        for (std::int64_t j = 0; j < n; ++j) o[j] += gw_partial[static_cast<std::size_t>(t) * n + j];
      }
    }
    return {gx, gw_out, at::Tensor(), at::Tensor()};
  }
};

const at::Tensor& ones_like_weight(std::int64_t n, const at::TensorOptions& options) {
  thread_local std::map<std::int64_t, at::Tensor> cache;
  at::Tensor& t = cache[n];
  if (!t.defined()) t = at::ones({n}, options);
  return t;
}

}  // namespace

at::Tensor rms_norm(const at::Tensor& x, std::int64_t group, double eps, const at::Tensor& weight, bool fused) {
  const bool kernel_ok = fused && x.device().is_cpu() && x.scalar_type() == at::kFloat &&
                         (!weight.defined() || weight.scalar_type() == at::kFloat) && x.size(-1) % group == 0;
  if (!kernel_ok) return rms_norm_plain(x, group, eps, weight);
  const at::Tensor& w = weight.defined() ? weight : ones_like_weight(x.size(-1), x.options());
  return FusedRmsNorm::apply(x, w, group, eps);
}

}  // namespace gammalab::trainer
