#include "worker/trainer/ops/qkv_heads.h"

#include <ATen/Parallel.h>
#include <cstring>

#include "worker/trainer/kernels/norm_rows.h"
#include "worker/trainer/ops/rms_norm.h"

namespace gammalab::trainer {

namespace {

// RoPE on one head, rotate-half convention: y = x ⊙ cos + rotate_half(x) ⊙ sin, rotate_half(x) = [-x₂, x₁], where x
// is the head scaled by w·inv (a Norm's output, without a buffer in between) or as it is (w null).
inline void rope_head(const float* x, const float* w, float inv, const float* c, const float* s, float* y,
                      std::int64_t hd) {
  using cpu::vec;
  const std::int64_t half = hd / 2;
  std::int64_t j = 0;
  if (w == nullptr) {
    for (; j + cpu::kWidth <= half; j += cpu::kWidth) {
      const cpu::Vec8 lo = *vec(x + j), hi = *vec(x + j + half);
      *vec(y + j) = lo * *vec(c + j) - hi * *vec(s + j);
      *vec(y + j + half) = hi * *vec(c + j + half) + lo * *vec(s + j + half);
    }
    for (; j < half; ++j) {
      y[j] = x[j] * c[j] - x[j + half] * s[j];
      y[j + half] = x[j + half] * c[j + half] + x[j] * s[j + half];
    }
    return;
  }
  for (; j + cpu::kWidth <= half; j += cpu::kWidth) {
    const cpu::Vec8 lo = *vec(x + j) * *vec(w + j) * inv, hi = *vec(x + j + half) * *vec(w + j + half) * inv;
    *vec(y + j) = lo * *vec(c + j) - hi * *vec(s + j);
    *vec(y + j + half) = hi * *vec(c + j + half) + lo * *vec(s + j + half);
  }
  for (; j < half; ++j) {
    const float lo = x[j] * w[j] * inv, hi = x[j + half] * w[j + half] * inv;
    y[j] = lo * c[j] - hi * s[j];
    y[j + half] = hi * c[j + half] + lo * s[j + half];
  }
}

// Its transpose, for the backward pass. With a Norm (w non-null) it adds gx ⊙ w ⊙ x over the head to dot, for
// the Norm's backward, while gx is still in registers.
inline void rope_head_backward(const float* g, const float* c, const float* s, float* gx, std::int64_t hd,
                               const float* w, const float* x, cpu::Vec8& dot) {
  using cpu::vec;
  const std::int64_t half = hd / 2;
  std::int64_t j = 0;
  for (; j + cpu::kWidth <= half; j += cpu::kWidth) {
    const cpu::Vec8 lo = *vec(g + j), hi = *vec(g + j + half);
    const cpu::Vec8 gx_lo = lo * *vec(c + j) + hi * *vec(s + j + half);
    const cpu::Vec8 gx_hi = hi * *vec(c + j + half) - lo * *vec(s + j);
    *vec(gx + j) = gx_lo;
    *vec(gx + j + half) = gx_hi;
    if (w != nullptr) dot += gx_lo * *vec(w + j) * *vec(x + j) + gx_hi * *vec(w + j + half) * *vec(x + j + half);
  }
  for (; j < half; ++j) {
    const float lo = g[j], hi = g[j + half];
    gx[j] = lo * c[j] + hi * s[j + half];
    gx[j + half] = hi * c[j + half] - lo * s[j];
    if (w != nullptr) dot[0] += gx[j] * w[j] * x[j] + gx[j + half] * w[j + half] * x[j + half];
  }
}

struct BranchPlan {
  std::int64_t heads = 0, offset = 0, width = 0;  // columns [offset, offset + width) of the projection
  bool rope = false, norm = false, shared_gamma = false;  // shared_gamma: one γ of group size for every group
  std::int64_t group = 0, rstd_offset = 0;
  const float* gamma = nullptr;
};

// Everything the row loops need, read from the inputs once. config = {H, Hkv, hd, norm q/k/v, group q/k/v}.
struct QkvPlan {
  std::int64_t B = 0, T = 0, D = 0, hd = 0, rstd_width = 0;
  std::array<BranchPlan, 3> branch;
  const float* cos = nullptr;  // [T_max, hd]
  const float* sin = nullptr;
  float eps = 0;

  QkvPlan(const at::Tensor& qkv, const std::array<at::Tensor, 3>& gammas, const at::Tensor& cos_t,
          const at::Tensor& sin_t, const std::vector<std::int64_t>& config, double eps_)
      : B(qkv.size(0)), T(qkv.size(1)), D(qkv.size(2)), hd(config[2]), cos(cos_t.data_ptr<float>()),
        sin(sin_t.data_ptr<float>()), eps(static_cast<float>(eps_)) {
    std::int64_t offset = 0;
    for (int c = 0; c < 3; ++c) {
      BranchPlan& b = branch[static_cast<std::size_t>(c)];
      b.heads = c == 0 ? config[0] : config[1];
      b.offset = offset;
      b.width = b.heads * hd;
      b.rope = c < 2;
      b.norm = config[static_cast<std::size_t>(3 + c)] != 0;
      b.group = config[static_cast<std::size_t>(6 + c)];
      if (b.norm) {
        b.gamma = gammas[static_cast<std::size_t>(c)].data_ptr<float>();
        b.shared_gamma = gammas[static_cast<std::size_t>(c)].numel() != b.width;
        b.rstd_offset = rstd_width;
        rstd_width += b.width / b.group;
      }
      offset += b.width;
    }
  }

  // Rows per block of the forward pass: the Norms' reductions read a block's rows as one stream and the writes
  // follow. Alternating the two row by row was clearly slower in timings with rows of 480 and 864 floats, where
  // blocks of ~128 KB did best; the backward pass timed faster row by row (docs/perf.md).
  std::int64_t block_rows() const { return std::max<std::int64_t>(1, 32768 / D); }

  // Row r = (b, t) of branch c's head 0 in the [B, heads, T, hd] output; head h is h·head_stride() further on.
  std::int64_t head_offset(const BranchPlan& br, std::int64_t r) const { return (r / T * br.heads * T + r % T) * hd; }
  std::int64_t head_stride() const { return T * hd; }
};

// Walks a branch's heads, knowing which Norm group each is in (groups are whole heads) without a division per head.
struct HeadWalk {
  std::int64_t h = 0, group = 0, in_group = 0, heads_per_group;
  HeadWalk(const BranchPlan& br, std::int64_t hd) : heads_per_group(br.norm ? br.group / hd : br.heads) {}
  void next() {
    ++h;
    if (++in_group == heads_per_group) {
      in_group = 0;
      ++group;
    }
  }
  bool last_of_group() const { return in_group + 1 == heads_per_group; }
  // γ over this head: one γ of group size shared by every group, or one entry per column.
  const float* gamma(const BranchPlan& br, std::int64_t hd) const {
    return br.gamma + (br.shared_gamma ? in_group : h) * hd;
  }
};

// The forward pass over rows [begin, end): every Norm's 1/rms for a block of rows first (see block_rows), then per
// head the Norm's scaling, RoPE and the head layout in one pass. Whole blocks per call let the helpers inline into
// the AVX2 build.
GAMMALAB_CPU_CLONES void forward_rows(const QkvPlan& plan, const float* xp, float* rp, const std::array<float*, 3>& outp,
                                      std::int64_t begin, std::int64_t end) {
  const std::int64_t hd = plan.hd, block = plan.block_rows();
  for (std::int64_t first = begin; first < end; first += block) {
    const std::int64_t last = std::min(end, first + block);
    for (std::int64_t r = first; r < last; ++r) {
      const float* row = xp + r * plan.D;
      float* rstd = rp + r * plan.rstd_width;
      for (const BranchPlan& br : plan.branch) {
        if (!br.norm) continue;
        for (std::int64_t g = 0; g < br.width / br.group; ++g) {
          rstd[br.rstd_offset + g] = norm_group::inverse_rms(row + br.offset + g * br.group, br.group, plan.eps);
        }
      }
    }
    for (std::int64_t r = first; r < last; ++r) {
      const std::int64_t t = r % plan.T;
      const float* row = xp + r * plan.D;
      const float* rstd = rp + r * plan.rstd_width;
      for (std::size_t c = 0; c < 3; ++c) {
        const BranchPlan& br = plan.branch[c];
        const float* x = row + br.offset;
        float* y = outp[c] + plan.head_offset(br, r);
        for (HeadWalk head(br, hd); head.h < br.heads; head.next(), x += hd, y += plan.head_stride()) {
          const float* w = br.norm ? head.gamma(br, hd) : nullptr;
          const float inv = br.norm ? rstd[br.rstd_offset + head.group] : 1.f;
          if (br.rope) {
            rope_head(x, w, inv, plan.cos + t * hd, plan.sin + t * hd, y, hd);
          } else if (br.norm) {
            norm_group::apply(x, w, inv, y, hd);
          } else {
            std::memcpy(y, x, sizeof(float) * static_cast<std::size_t>(hd));
          }
        }
      }
    }
  }
}

// Row r of the backward pass: RoPE's transpose writes each head's gradient into the row of gx, and under a Norm a
// second pass over the branch (in the L1 cache) turns it, in place, into the gradient before the Norm. dots
// (D floats) is scratch.
GAMMALAB_CPU_CLONES void backward_row(const QkvPlan& plan, const float* xp, const float* rp,
                                      const std::array<const float*, 3>& gp, float* gxp, const std::array<float*, 3>& gwp,
                                      float* dots, std::int64_t r) {
  const std::int64_t t = r % plan.T, hd = plan.hd;
  for (std::size_t c = 0; c < 3; ++c) {
    const BranchPlan& br = plan.branch[c];
    const float* x = xp + r * plan.D + br.offset;
    float* dst = gxp + r * plan.D + br.offset;
    cpu::Vec8 dot = {};  // Σ over the current Norm group
    const float* src = gp[c] + plan.head_offset(br, r);
    for (HeadWalk head(br, hd); head.h < br.heads; head.next(), src += plan.head_stride()) {
      const std::int64_t o = head.h * hd;
      const float* w = br.norm ? head.gamma(br, hd) : nullptr;
      if (br.rope) {
        rope_head_backward(src, plan.cos + t * hd, plan.sin + t * hd, dst + o, hd, w, x + o, dot);
      } else {
        std::memcpy(dst + o, src, sizeof(float) * static_cast<std::size_t>(hd));
        if (w != nullptr) dot[0] += cpu::sum_of_products(dst + o, w, x + o, hd);
      }
      if (br.norm && head.last_of_group()) {
        dots[head.group] = cpu::horizontal_sum(dot);
        dot = cpu::Vec8{};
      }
    }
    if (!br.norm) continue;
    const float* rstd = rp + r * plan.rstd_width + br.rstd_offset;
    const std::int64_t w_step = br.shared_gamma ? 0 : br.group;
    for (std::int64_t g = 0; g < br.width / br.group; ++g) {
      const std::int64_t o = g * br.group;
      norm_group::backward_given_dot(x + o, br.gamma + g * w_step, dst + o, rstd[g], dots[g], dst + o,
                                     gwp[c] != nullptr ? gwp[c] + g * w_step : nullptr, br.group);
    }
  }
}

class FusedQkvHeads : public torch::autograd::Function<FusedQkvHeads> {
 public:
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, at::Tensor qkv, at::Tensor gamma_q,
                                                at::Tensor gamma_k, at::Tensor gamma_v, at::Tensor cos, at::Tensor sin,
                                                std::vector<std::int64_t> config, double eps) {
    qkv = qkv.contiguous();
    const QkvPlan plan(qkv, {gamma_q, gamma_k, gamma_v}, cos, sin, config, eps);
    const std::int64_t rows = plan.B * plan.T;
    std::array<at::Tensor, 3> out;
    std::array<float*, 3> outp{};
    for (std::size_t c = 0; c < 3; ++c) {
      out[c] = at::empty({plan.B, plan.branch[c].heads, plan.T, plan.hd}, qkv.options());
      outp[c] = out[c].data_ptr<float>();
    }
    at::Tensor rstd = at::empty({rows, std::max<std::int64_t>(1, plan.rstd_width)}, qkv.options());
    const float* xp = qkv.data_ptr<float>();
    float* rp = rstd.data_ptr<float>();
    at::parallel_for(0, rows, row_grain(plan.D), [&](std::int64_t begin, std::int64_t end) {
      forward_rows(plan, xp, rp, outp, begin, end);
    });
    ctx->save_for_backward({qkv, gamma_q, gamma_k, gamma_v, cos, sin, rstd});
    ctx->saved_data["config"] = config;
    ctx->saved_data["eps"] = eps;
    return {out[0], out[1], out[2]};
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& qkv = saved[0];
    const QkvPlan plan(qkv, {saved[1], saved[2], saved[3]}, saved[4], saved[5],
                       ctx->saved_data["config"].toIntVector(), ctx->saved_data["eps"].toDouble());
    const std::int64_t rows = plan.B * plan.T;
    std::array<at::Tensor, 3> g;
    std::array<const float*, 3> gp{};
    std::vector<WeightGradPartials> gw;
    for (std::size_t c = 0; c < 3; ++c) {
      const BranchPlan& br = plan.branch[c];
      g[c] = grads[c].defined() ? grads[c].contiguous() : at::zeros({plan.B, br.heads, plan.T, plan.hd}, qkv.options());
      gp[c] = g[c].data_ptr<float>();
      gw.emplace_back(br.shared_gamma ? br.group : br.width, br.norm && ctx->needs_input_grad(1 + c));
    }
    at::Tensor gx = at::empty(qkv.sizes(), qkv.options());
    const float* xp = qkv.data_ptr<float>();
    const float* rp = saved[6].data_ptr<float>();
    float* gxp = gx.data_ptr<float>();
    at::parallel_for(0, rows, row_grain(plan.D), [&](std::int64_t begin, std::int64_t end) {
      std::vector<float> dots(static_cast<std::size_t>(plan.D));
      std::array<float*, 3> gwp{};
      for (std::size_t c = 0; c < 3; ++c) gwp[c] = gw[c].for_this_thread();
      for (std::int64_t r = begin; r < end; ++r) backward_row(plan, xp, rp, gp, gxp, gwp, dots.data(), r);
    });
    return {gx, gw[0].sum(qkv.options()), gw[1].sum(qkv.options()), gw[2].sum(qkv.options()), at::Tensor(), at::Tensor(),
            at::Tensor(), at::Tensor()};
  }
};

QkvHeads qkv_heads_plain(const at::Tensor& qkv, const QkvLayout& s, const std::array<std::vector<HeadNorm>, 3>& norms,
                         double eps, const RopeTables& rope, bool fused) {
  const std::int64_t B = qkv.size(0), T = qkv.size(1);
  const std::int64_t dq = s.n_heads * s.head_dim, dkv = s.n_kv_heads * s.head_dim;
  auto parts = qkv.split_with_sizes({dq, dkv, dkv}, -1);
  for (std::size_t c = 0; c < 3; ++c) {
    for (const HeadNorm& n : norms[c]) {
      const std::int64_t width = parts[c].size(-1), group = n.group > 0 ? n.group : width;
      if (n.gamma.defined() && n.gamma.numel() == group && group != width) {  // one γ for every group
        at::Tensor x = parts[c].reshape({B, T, width / group, group});
        parts[c] = rms_norm(x, group, eps, n.gamma, fused).reshape({B, T, width});
      } else {
        parts[c] = rms_norm(parts[c], group, eps, n.gamma, fused);
      }
    }
  }
  at::Tensor q = parts[0].reshape({B, T, s.n_heads, s.head_dim});
  at::Tensor k = parts[1].reshape({B, T, s.n_kv_heads, s.head_dim});
  at::Tensor v = parts[2].reshape({B, T, s.n_kv_heads, s.head_dim});
  return {apply_rope(q, rope).transpose(1, 2), apply_rope(k, rope).transpose(1, 2), v.transpose(1, 2)};
}

}  // namespace

QkvHeads qkv_heads(const at::Tensor& qkv, const QkvLayout& s, const std::array<std::vector<HeadNorm>, 3>& norms,
                   double eps, const RopeTables& rope, bool fused) {
  bool kernel_ok = fused && cpu_kernel_fits(qkv) && cpu_kernel_fits(rope.cos) && s.head_dim % 2 == 0;
  // Autograd functions take defined tensors only: an empty one stands for "no Norm".
  std::array<at::Tensor, 3> gammas = {unit_weight(0), unit_weight(0), unit_weight(0)};
  std::vector<std::int64_t> config = {s.n_heads, s.n_kv_heads, s.head_dim, 0, 0, 0, 1, 1, 1};
  for (std::size_t c = 0; c < 3 && kernel_ok; ++c) {
    const std::int64_t width = (c == 0 ? s.n_heads : s.n_kv_heads) * s.head_dim;
    if (norms[c].size() > 1) kernel_ok = false;
    if (norms[c].size() != 1) continue;
    const HeadNorm& n = norms[c].front();
    const std::int64_t group = n.group > 0 ? n.group : width;
    gammas[c] = n.gamma.defined() ? n.gamma : unit_weight(width);
    kernel_ok = kernel_ok && cpu_kernel_fits(gammas[c]) && width % group == 0 && group % s.head_dim == 0 &&
                (gammas[c].numel() == width || gammas[c].numel() == group);
    config[3 + c] = 1;
    config[6 + c] = group;
  }
  if (!kernel_ok) return qkv_heads_plain(qkv, s, norms, eps, rope, fused);
  auto out = FusedQkvHeads::apply(qkv, gammas[0], gammas[1], gammas[2], rope.cos, rope.sin, config, eps);
  return {out[0], out[1], out[2]};
}

}  // namespace gammalab::trainer
