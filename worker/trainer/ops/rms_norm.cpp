#include "worker/trainer/ops/rms_norm.h"

#include <ATen/Parallel.h>

#include "worker/trainer/kernels/norm_rows.h"

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
    at::parallel_for(0, rows, row_grain(n), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) norm_row_forward(xp + r * rs, wp, yp + r * n, rp + r * groups, n, group, feps);
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
    WeightGradPartials gw(n, ctx->needs_input_grad(1));
    const float* xp = x.data_ptr<float>();
    const float* wp = weight.data_ptr<float>();
    const float* rp = rstd.data_ptr<float>();
    const float* gp = gy.data_ptr<float>();
    float* gxp = gx.data_ptr<float>();
    at::parallel_for(0, rows, row_grain(n), [&](std::int64_t begin, std::int64_t end) {
      float* gwp = gw.for_this_thread();
      for (std::int64_t r = begin; r < end; ++r) {
        norm_row_backward(xp + r * rs, wp, gp + r * n, rp + r * groups, gxp + r * n, gwp, n, group);
      }
    });
    const at::Tensor gw_out = gw.sum(x.options());
    return {gx, gw_out, at::Tensor(), at::Tensor()};
  }
};

}  // namespace

at::Tensor rms_norm(const at::Tensor& x, std::int64_t group, double eps, const at::Tensor& weight, bool fused) {
  const bool kernel_ok = fused && cpu_kernel_fits(x) && (!weight.defined() || cpu_kernel_fits(weight)) &&
                         x.size(-1) % group == 0;
  if (!kernel_ok) return rms_norm_plain(x, group, eps, weight);
  const at::Tensor& w = weight.defined() ? weight : unit_weight(x.size(-1));
  return FusedRmsNorm::apply(x, w, group, eps);
}

}  // namespace gammalab::trainer
