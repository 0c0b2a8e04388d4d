#include "worker/trainer/swiglu.h"

#include <ATen/Parallel.h>
#include <algorithm>
#include <cstring>
#include <vector>

#include "worker/trainer/cpu_vector.h"
#include "worker/trainer/norm_rows.h"
#include "worker/trainer/rms_norm.h"

namespace gammalab::trainer {

namespace {

// The rows of the projection, and how a and b are made from them.
struct GateRows {
  const float* p = nullptr;  // [rows, 2F]
  std::int64_t F = 0;
  bool norm = false;
  const float* gamma_g = nullptr;
  const float* gamma_u = nullptr;
  std::int64_t group_g = 0, group_u = 0;
  float eps = 0;

  std::int64_t groups() const { return norm ? F / group_g + F / group_u : 0; }
};

// Work space for a block of rows: a, b and σ(a). Blocks keep it in the L2 cache while the vectorised ATen sigmoid
// runs over the whole block at once.
struct Block {
  std::vector<float> a, b, s;
  Block(const GateRows& g, std::int64_t n) : a(static_cast<std::size_t>(n * g.F)), b(a.size()), s(a.size()) {}

  // Fills a, b and σ(a) for rows [first, first + count). The Norms' 1/rms of row r is computed into
  // rstd_all[r·groups] (forward) or read from there (backward).
  void fill(const GateRows& g, std::int64_t first, std::int64_t count, float* rstd_all, bool known_rstd) {
    const std::int64_t G = g.groups();
    for (std::int64_t i = 0; i < count; ++i) {
      const float* x = g.p + (first + i) * 2 * g.F;
      float* ai = a.data() + i * g.F;
      float* bi = b.data() + i * g.F;
      if (g.norm) {
        float* ri = rstd_all + (first + i) * G;
        if (known_rstd) {
          norm_row_apply(x, g.gamma_g, ai, ri, g.F, g.group_g);
          norm_row_apply(x + g.F, g.gamma_u, bi, ri + g.F / g.group_g, g.F, g.group_u);
        } else {
          norm_row_forward(x, g.gamma_g, ai, ri, g.F, g.group_g, g.eps);
          norm_row_forward(x + g.F, g.gamma_u, bi, ri + g.F / g.group_g, g.F, g.group_u, g.eps);
        }
      } else {
        std::memcpy(ai, x, sizeof(float) * static_cast<std::size_t>(g.F));
        std::memcpy(bi, x + g.F, sizeof(float) * static_cast<std::size_t>(g.F));
      }
    }
    const auto opts = at::TensorOptions().dtype(at::kFloat);
    at::Tensor st = at::from_blob(s.data(), {count, g.F}, opts);
    at::sigmoid_out(st, at::from_blob(a.data(), {count, g.F}, opts));
  }
};

// ∂h/∂a and ∂h/∂b of h = a σ(a) b over [begin, end) of a row: ∂h/∂a = b σ(a) (1 + a (1 - σ(a))), ∂h/∂b = a σ(a).
// With kSums, returns Σ ga⊙a and Σ gb⊙b over the range, the sums the Norms' backward needs, while the values are
// in registers.
template <bool kSums>
inline std::pair<float, float> gate_grads(const float* a, const float* b, const float* s, const float* gy, float* ga,
                                          float* gb, std::int64_t begin, std::int64_t end) {
  using cpu::vec;
  cpu::Vec8 dot_a = {}, dot_b = {};
  std::int64_t j = begin;
  for (; j + cpu::kWidth <= end; j += cpu::kWidth) {
    const cpu::Vec8 va = *vec(a + j), vb = *vec(b + j), vs = *vec(s + j), vg = *vec(gy + j);
    const cpu::Vec8 da = vg * vb * vs * (1.f + va * (1.f - vs)), db = vg * va * vs;
    *vec(ga + j) = da;
    *vec(gb + j) = db;
    if constexpr (kSums) {
      dot_a += da * va;
      dot_b += db * vb;
    }
  }
  float sum_a = cpu::horizontal_sum(dot_a), sum_b = cpu::horizontal_sum(dot_b);
  for (; j < end; ++j) {
    ga[j] = gy[j] * b[j] * s[j] * (1.f + a[j] * (1.f - s[j]));
    gb[j] = gy[j] * a[j] * s[j];
    if constexpr (kSums) {
      sum_a += ga[j] * a[j];
      sum_b += gb[j] * b[j];
    }
  }
  return {sum_a, sum_b};
}

// One row of the backward pass through the Norms: out = ∂L/∂(projection row x). Since a = γ⊙x·rstd, the Norm
// backward's Σ ga⊙γ⊙x per group is Σ ga⊙a / rstd, summed while the gradients are made when both halves share
// one grouping (as DNP's whole-half Norms do). ga, gb and dots are scratch of F floats.
GAMMALAB_CPU_CLONES void backward_row_with_norms(const GateRows& g, const float* a, const float* b, const float* s,
                                                 const float* gy, const float* x, const float* rstd, float* out,
                                                 float* gwg, float* gwu, float* ga, float* gb, float* dots) {
  const std::int64_t F = g.F, groups_g = F / g.group_g, groups_u = F / g.group_u;
  float* dots_g = dots;
  float* dots_u = dots + groups_g;
  if (g.group_g == g.group_u) {
    for (std::int64_t k = 0; k < groups_g; ++k) {
      const auto [sum_a, sum_b] = gate_grads<true>(a, b, s, gy, ga, gb, k * g.group_g, (k + 1) * g.group_g);
      dots_g[k] = sum_a / rstd[k];
      dots_u[k] = sum_b / rstd[groups_g + k];
    }
  } else {
    gate_grads<false>(a, b, s, gy, ga, gb, 0, F);
    for (std::int64_t k = 0; k < groups_g; ++k) {
      dots_g[k] = cpu::sum_of_products(ga + k * g.group_g, a + k * g.group_g, nullptr, g.group_g) / rstd[k];
    }
    for (std::int64_t k = 0; k < groups_u; ++k) {
      dots_u[k] = cpu::sum_of_products(gb + k * g.group_u, b + k * g.group_u, nullptr, g.group_u) / rstd[groups_g + k];
    }
  }
  for (std::int64_t k = 0; k < groups_g; ++k) {
    const std::int64_t o = k * g.group_g;
    norm_group::backward_given_dot(x + o, g.gamma_g + o, ga + o, rstd[k], dots_g[k], out + o,
                                   gwg != nullptr ? gwg + o : nullptr, g.group_g);
  }
  for (std::int64_t k = 0; k < groups_u; ++k) {
    const std::int64_t o = k * g.group_u;
    norm_group::backward_given_dot(x + F + o, g.gamma_u + o, gb + o, rstd[groups_g + k], dots_u[k], out + F + o,
                                   gwu != nullptr ? gwu + o : nullptr, g.group_u);
  }
}

// One row of the backward pass without Norms: the gradients are the result.
GAMMALAB_CPU_CLONES void backward_row(const float* a, const float* b, const float* s, const float* gy, float* out,
                                      std::int64_t F) {
  gate_grads<false>(a, b, s, gy, out, out + F, 0, F);
}

std::int64_t block_rows(std::int64_t F) { return std::max<std::int64_t>(1, 8192 / F); }

GateRows gate_rows(const at::Tensor& p, const at::Tensor& gamma_g, const at::Tensor& gamma_u, std::int64_t group_g,
                   std::int64_t group_u, double eps, bool norm) {
  GateRows g;
  g.p = p.data_ptr<float>();
  g.F = p.size(-1) / 2;
  g.norm = norm;
  if (norm) {
    g.gamma_g = gamma_g.data_ptr<float>();
    g.gamma_u = gamma_u.data_ptr<float>();
    g.group_g = group_g;
    g.group_u = group_u;
  }
  g.eps = static_cast<float>(eps);
  return g;
}

class FusedSwiglu : public torch::autograd::Function<FusedSwiglu> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor p, at::Tensor gamma_g, at::Tensor gamma_u,
                            std::int64_t group_g, std::int64_t group_u, double eps, bool norm) {
    p = p.contiguous();
    const GateRows g = gate_rows(p, gamma_g, gamma_u, group_g, group_u, eps, norm);
    const std::int64_t rows = p.numel() / (2 * g.F), blk = block_rows(g.F);
    auto sizes = p.sizes().vec();
    sizes.back() = g.F;
    at::Tensor h = at::empty(sizes, p.options());
    at::Tensor rstd = at::empty({norm ? rows * g.groups() : 0}, p.options());
    float* hp = h.data_ptr<float>();
    float* rp = rstd.data_ptr<float>();
    at::parallel_for(0, rows, blk, [&](std::int64_t begin, std::int64_t end) {
      Block work(g, std::min(blk, end - begin));
      for (std::int64_t first = begin; first < end; first += blk) {
        const std::int64_t count = std::min(blk, end - first);
        work.fill(g, first, count, rp, false);
        const float *a = work.a.data(), *b = work.b.data(), *s = work.s.data();
        float* out = hp + first * g.F;
        for (std::int64_t j = 0; j < count * g.F; ++j) out[j] = a[j] * s[j] * b[j];
      }
    });
    ctx->save_for_backward({p, gamma_g, gamma_u, rstd});
    ctx->saved_data["group_g"] = group_g;
    ctx->saved_data["group_u"] = group_u;
    ctx->saved_data["eps"] = eps;
    ctx->saved_data["norm"] = norm;
    return h;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor& p = saved[0];
    const bool norm = ctx->saved_data["norm"].toBool();
    const GateRows g = gate_rows(p, saved[1], saved[2], ctx->saved_data["group_g"].toInt(),
                                 ctx->saved_data["group_u"].toInt(), ctx->saved_data["eps"].toDouble(), norm);
    const at::Tensor gh = grads[0].contiguous();
    const std::int64_t rows = p.numel() / (2 * g.F), blk = block_rows(g.F);
    at::Tensor gp = at::empty(p.sizes(), p.options());
    WeightGradPartials gw_g(g.F, norm && ctx->needs_input_grad(1)), gw_u(g.F, norm && ctx->needs_input_grad(2));
    const float* ghp = gh.data_ptr<float>();
    float* gpp = gp.data_ptr<float>();
    float* rp = saved[3].data_ptr<float>();
    at::parallel_for(0, rows, blk, [&](std::int64_t begin, std::int64_t end) {
      Block work(g, std::min(blk, end - begin));
      std::vector<float> ga(static_cast<std::size_t>(g.F)), gb(ga.size()), dots(2 * ga.size());
      float* gwg = gw_g.for_this_thread();
      float* gwu = gw_u.for_this_thread();
      for (std::int64_t first = begin; first < end; first += blk) {
        const std::int64_t count = std::min(blk, end - first);
        work.fill(g, first, count, rp, true);
        for (std::int64_t i = 0; i < count; ++i) {
          const float* a = work.a.data() + i * g.F;
          const float* b = work.b.data() + i * g.F;
          const float* s = work.s.data() + i * g.F;
          const float* gy = ghp + (first + i) * g.F;
          float* out = gpp + (first + i) * 2 * g.F;
          if (norm) {
            backward_row_with_norms(g, a, b, s, gy, g.p + (first + i) * 2 * g.F, rp + (first + i) * g.groups(), out, gwg,
                                    gwu, ga.data(), gb.data(), dots.data());
          } else {
            backward_row(a, b, s, gy, out, g.F);
          }
        }
      }
    });
    return {gp, gw_g.sum(p.options()), gw_u.sum(p.options()), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

// norm: groups already resolved (no 0).
at::Tensor swiglu_plain(const at::Tensor& gate_up, const SwigluNorm* norm, bool fused) {
  const std::int64_t F = gate_up.size(-1) / 2;
  at::Tensor a = gate_up.narrow(-1, 0, F), b = gate_up.narrow(-1, F, F);
  if (norm != nullptr) {
    a = rms_norm(a, norm->gate_group, norm->eps, norm->gate_gamma, fused);
    b = rms_norm(b, norm->up_group, norm->eps, norm->up_gamma, fused);
  }
  return at::silu(a) * b;
}

}  // namespace

at::Tensor swiglu(const at::Tensor& gate_up, const SwigluNorm* norm, bool fused) {
  const std::int64_t F = gate_up.size(-1) / 2;
  bool kernel_ok = fused && cpu_kernel_fits(gate_up) && F > 0;
  if (norm == nullptr) {
    return kernel_ok ? FusedSwiglu::apply(gate_up, unit_weight(0), unit_weight(0), 0, 0, 0.0, false)
                     : swiglu_plain(gate_up, nullptr, fused);
  }
  SwigluNorm n = *norm;
  if (n.gate_group <= 0) n.gate_group = F;
  if (n.up_group <= 0) n.up_group = F;
  const at::Tensor& gamma_g = n.gate_gamma.defined() ? n.gate_gamma : unit_weight(F);
  const at::Tensor& gamma_u = n.up_gamma.defined() ? n.up_gamma : unit_weight(F);
  kernel_ok = kernel_ok && cpu_kernel_fits(gamma_g) && cpu_kernel_fits(gamma_u) && F % n.gate_group == 0 &&
              F % n.up_group == 0;
  if (!kernel_ok) return swiglu_plain(gate_up, &n, fused);
  return FusedSwiglu::apply(gate_up, gamma_g, gamma_u, n.gate_group, n.up_group, n.eps, true);
}

}  // namespace gammalab::trainer
