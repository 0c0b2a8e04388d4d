#include "worker/trainer/ops/swiglu.h"

#include <ATen/Parallel.h>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "worker/trainer/kernels/cpu_vector.h"
#include "worker/trainer/kernels/norm_rows.h"
#include "worker/trainer/ops/rms_norm.h"

// SLEEF's x86 functions: SSE2 for the baseline build of the row loops, AVX2 for the AVX2 one. Elsewhere (other
// CPUs, builds without SLEEF) the portable build alone.
#if GAMMALAB_HAVE_SLEEF && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GAMMALAB_SWIGLU_SLEEF_X86 1
#include <immintrin.h>
#include <sleef.h>
// sleef.h declares its AVX2 functions only where the whole file is built for AVX; this file is built for the
// baseline ISA and calls the AVX2 one from the kernels built for AVX2, chosen at run time.
extern "C" __m256 Sleef_expf8_u10avx2(__m256);
#endif

namespace gammalab::trainer {

namespace {

using cpu::Vec8;
using cpu::vec;

// e^x over eight floats, in place. SLEEF's functions are accurate to 1 ulp, and ATen's own sigmoid calls them too;
// PortableExp (std::exp lane by lane) serves builds without SLEEF.
struct PortableExp {
  static void exp(Vec8& v) {
    for (int i = 0; i < cpu::kWidth; ++i) v[i] = std::exp(v[i]);
  }
};
#ifdef GAMMALAB_SWIGLU_SLEEF_X86
struct Sse2Exp {
  [[gnu::always_inline]] static void exp(Vec8& v) {
    __m128 half[2];
    __builtin_memcpy(half, &v, sizeof v);
    half[0] = Sleef_expf4_u10sse2(half[0]);
    half[1] = Sleef_expf4_u10sse2(half[1]);
    __builtin_memcpy(&v, half, sizeof v);
  }
};
// Inlined only into the row loops built for AVX2 (forward_avx2, backward_avx2). GCC still warns, at the definition,
// that an AVX vector passed by value from a build without AVX would change the ABI; no such call exists.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
struct Avx2Exp {
  [[gnu::always_inline]] static void exp(Vec8& v) {
    v = reinterpret_cast<Vec8>(Sleef_expf8_u10avx2(reinterpret_cast<__m256>(v)));
  }
};
#pragma GCC diagnostic pop
#endif

// The rows of the projection p = [gate | up], how a and b are made from them (a = γ_g ⊙ gate · 1/rms per group
// under the Norms, a = gate without), and where the Norms' 1/rms per row go: G floats per row, gate groups first.
struct GateRows {
  const float* p = nullptr;  // [rows, 2F]
  float* rstd = nullptr;     // [rows, G]
  std::int64_t F = 0;
  bool norm = false;
  const float* gamma_g = nullptr;
  const float* gamma_u = nullptr;
  std::int64_t group_g = 0, group_u = 0;  // F for both without Norms
  float eps = 0;

  std::int64_t groups() const { return norm ? F / group_g + F / group_u : 0; }
};

// σ(a) as ATen computes it: 1 / (1 + e^-a). (Vectors go by reference: by value would change the ABI between
// the baseline and AVX2 builds.)
template <class Exp>
[[gnu::always_inline]] inline void sigmoid(const Vec8& a, Vec8& s) {
  Vec8 e = -a;
  Exp::exp(e);
  s = 1.f / (1.f + e);
}
inline float sigmoid(float a) { return 1.f / (1.f + std::exp(-a)); }

// Asks for n floats from p on into the cache. The row loops call a vector function (exp) every 8 floats, which
// keeps the out-of-order core from running ahead to the next loads; without this, loads of rows not yet in the
// cache stall the loop. Only without Norms: with them a reduction pass brings the row in first, and prefetching
// there measured slower (docs/perf.md).
[[gnu::always_inline]] inline void prefetch(const float* p, std::int64_t n) {
  for (std::int64_t j = 0; j < n; j += 16) __builtin_prefetch(p + j);
}

// A stretch [lo, hi) of a row inside one gate group and one up group, so that each half has one 1/rms in it.
struct Segment {
  std::int64_t lo, hi;
  float inv_a, inv_b;
};

// Calls f(Segment) over the row; without Norms the whole row is one segment with scale 1.
template <class F>
[[gnu::always_inline]] inline void for_each_segment(const GateRows& g, const float* rstd, F&& f) {
  const std::int64_t groups_g = g.F / g.group_g;
  for (std::int64_t lo = 0; lo < g.F;) {
    const std::int64_t hi = std::min((lo / g.group_g + 1) * g.group_g, (lo / g.group_u + 1) * g.group_u);
    f(Segment{lo, hi, g.norm ? rstd[lo / g.group_g] : 1.f, g.norm ? rstd[groups_g + lo / g.group_u] : 1.f});
    lo = hi;
  }
}

// a, b and σ(a) at [j, j + 8) of a segment, and at j alone (the row's tail).
template <class Exp, bool kNorm>
[[gnu::always_inline]] inline void gate_values(const GateRows& g, const float* x, const Segment& s, std::int64_t j,
                                               Vec8& a, Vec8& b, Vec8& sa) {
  a = *vec(x + j);
  b = *vec(x + g.F + j);
  if constexpr (kNorm) {
    a = a * s.inv_a * *vec(g.gamma_g + j);
    b = b * s.inv_b * *vec(g.gamma_u + j);
  }
  sigmoid<Exp>(a, sa);
}
template <bool kNorm>
[[gnu::always_inline]] inline void gate_values(const GateRows& g, const float* x, const Segment& s, std::int64_t j,
                                               float& a, float& b, float& sa) {
  a = x[j];
  b = x[g.F + j];
  if constexpr (kNorm) {
    a = a * s.inv_a * g.gamma_g[j];
    b = b * s.inv_b * g.gamma_u[j];
  }
  sa = sigmoid(a);
}

// h = a σ(a) b for rows [begin, end), after the Norms' 1/rms of each row: one pass over the row for the sums of
// squares, one for h, with the row in the L1 cache for the second.
template <class Exp, bool kNorm>
[[gnu::always_inline]] inline void forward_rows(const GateRows& g, float* h, std::int64_t begin, std::int64_t end) {
  const std::int64_t F = g.F, G = g.groups();
  for (std::int64_t r = begin; r < end; ++r) {
    const float* x = g.p + r * 2 * F;
    float* y = h + r * F;
    float* rstd = g.rstd + r * G;
    if constexpr (kNorm) {
      for (std::int64_t k = 0; k < F / g.group_g; ++k) {
        rstd[k] = norm_group::inverse_rms(x + k * g.group_g, g.group_g, g.eps);
      }
      for (std::int64_t k = 0; k < F / g.group_u; ++k) {
        rstd[F / g.group_g + k] = norm_group::inverse_rms(x + F + k * g.group_u, g.group_u, g.eps);
      }
    }
    if (!kNorm && r + 1 < end) prefetch(x + 2 * F, 2 * F);
    for_each_segment(g, rstd, [&](const Segment& s) {
      std::int64_t j = s.lo;
      for (; j + cpu::kWidth <= s.hi; j += cpu::kWidth) {
        Vec8 a, b, sa;
        gate_values<Exp, kNorm>(g, x, s, j, a, b, sa);
        *vec(y + j) = a * sa * b;
      }
      for (; j < s.hi; ++j) {
        float a, b, sa;
        gate_values<kNorm>(g, x, s, j, a, b, sa);
        y[j] = a * sa * b;
      }
    });
  }
}

// ∂h/∂a = b σ(a) (1 + a (1 - σ(a))) and ∂h/∂b = a σ(a) over a segment, into ga and gb. With kNorm, also returns
// Σ ga⊙a and Σ gb⊙b, from which the Norms' backward gets its Σ ga⊙γ⊙x (= Σ ga⊙a / rstd) without another pass.
template <class Exp, bool kNorm>
[[gnu::always_inline]] inline std::pair<float, float> gate_grads(const GateRows& g, const float* x, const float* gy,
                                                                 const Segment& s, float* ga, float* gb) {
  Vec8 dot_a = {}, dot_b = {};
  std::int64_t j = s.lo;
  for (; j + cpu::kWidth <= s.hi; j += cpu::kWidth) {
    Vec8 a, b, sa;
    gate_values<Exp, kNorm>(g, x, s, j, a, b, sa);
    const Vec8 vg = *vec(gy + j);
    const Vec8 da = vg * b * sa * (1.f + a * (1.f - sa)), db = vg * a * sa;
    *vec(ga + j) = da;
    *vec(gb + j) = db;
    if constexpr (kNorm) {
      dot_a += da * a;
      dot_b += db * b;
    }
  }
  float sum_a = cpu::horizontal_sum(dot_a), sum_b = cpu::horizontal_sum(dot_b);
  for (; j < s.hi; ++j) {
    float a, b, sa;
    gate_values<kNorm>(g, x, s, j, a, b, sa);
    ga[j] = gy[j] * b * sa * (1.f + a * (1.f - sa));
    gb[j] = gy[j] * a * sa;
    if constexpr (kNorm) {
      sum_a += ga[j] * a;
      sum_b += gb[j] * b;
    }
  }
  return {sum_a, sum_b};
}

// Per-thread scratch of the backward pass under Norms: the per-group sums of a row.
struct BackwardScratch {
  std::vector<float> dots;
  explicit BackwardScratch(const GateRows& g) : dots(static_cast<std::size_t>(g.groups())) {}
};

// ∂L/∂p for rows [begin, end) into out ([rows, 2F]); gwg, gwu (may be null) collect the γ gradients. Without Norms
// the gate gradients are the result; with them a second pass over the row (in the L1 cache) turns them, in place,
// into the gradients before the Norms.
template <class Exp, bool kNorm>
[[gnu::always_inline]] inline void backward_rows(const GateRows& g, const float* gh, float* out, float* gwg, float* gwu,
                                                 BackwardScratch& scratch, std::int64_t begin, std::int64_t end) {
  const std::int64_t F = g.F, G = g.groups(), groups_g = kNorm ? F / g.group_g : 0;
  for (std::int64_t r = begin; r < end; ++r) {
    const float* x = g.p + r * 2 * F;
    const float* gy = gh + r * F;
    float* gx = out + r * 2 * F;
    const float* rstd = g.rstd + r * G;
    if (!kNorm && r + 1 < end) {
      prefetch(x + 2 * F, 2 * F);
      prefetch(gy + F, F);
    }
    if constexpr (!kNorm) {
      for_each_segment(g, rstd, [&](const Segment& s) { gate_grads<Exp, false>(g, x, gy, s, gx, gx + F); });
    } else {
      float* dots = scratch.dots.data();
      std::fill_n(dots, G, 0.f);
      for_each_segment(g, rstd, [&](const Segment& s) {
        const auto [sum_a, sum_b] = gate_grads<Exp, true>(g, x, gy, s, gx, gx + F);
        dots[s.lo / g.group_g] += sum_a / s.inv_a;
        dots[groups_g + s.lo / g.group_u] += sum_b / s.inv_b;
      });
      for (std::int64_t k = 0; k < groups_g; ++k) {
        const std::int64_t o = k * g.group_g;
        norm_group::backward_given_dot(x + o, g.gamma_g + o, gx + o, rstd[k], dots[k], gx + o,
                                       gwg != nullptr ? gwg + o : nullptr, g.group_g);
      }
      for (std::int64_t k = 0; k < F / g.group_u; ++k) {
        const std::int64_t o = k * g.group_u;
        norm_group::backward_given_dot(x + F + o, g.gamma_u + o, gx + F + o, rstd[groups_g + k], dots[groups_g + k],
                                       gx + F + o, gwu != nullptr ? gwu + o : nullptr, g.group_u);
      }
    }
  }
}

// The row loops, one build per way of taking e^x (SwigluBuild).
struct RowKernels {
  void (*forward)(const GateRows&, float*, std::int64_t, std::int64_t);
  void (*backward)(const GateRows&, const float*, float*, float*, float*, BackwardScratch&, std::int64_t, std::int64_t);
};

template <class Exp>
void forward_with(const GateRows& g, float* h, std::int64_t begin, std::int64_t end) {
  g.norm ? forward_rows<Exp, true>(g, h, begin, end) : forward_rows<Exp, false>(g, h, begin, end);
}
template <class Exp>
void backward_with(const GateRows& g, const float* gh, float* out, float* gwg, float* gwu, BackwardScratch& scratch,
                   std::int64_t begin, std::int64_t end) {
  g.norm ? backward_rows<Exp, true>(g, gh, out, gwg, gwu, scratch, begin, end)
         : backward_rows<Exp, false>(g, gh, out, gwg, gwu, scratch, begin, end);
}

#ifdef GAMMALAB_SWIGLU_SLEEF_X86
[[gnu::target("avx2,fma")]] void forward_avx2(const GateRows& g, float* h, std::int64_t begin, std::int64_t end) {
  g.norm ? forward_rows<Avx2Exp, true>(g, h, begin, end) : forward_rows<Avx2Exp, false>(g, h, begin, end);
}
[[gnu::target("avx2,fma")]] void backward_avx2(const GateRows& g, const float* gh, float* out, float* gwg, float* gwu,
                                               BackwardScratch& scratch, std::int64_t begin, std::int64_t end) {
  g.norm ? backward_rows<Avx2Exp, true>(g, gh, out, gwg, gwu, scratch, begin, end)
         : backward_rows<Avx2Exp, false>(g, gh, out, gwg, gwu, scratch, begin, end);
}
#endif

RowKernels row_kernels_of(SwigluBuild build) {
  switch (build) {
#ifdef GAMMALAB_SWIGLU_SLEEF_X86
    case SwigluBuild::kAvx2:
      return {forward_avx2, backward_avx2};
    case SwigluBuild::kSse2:
      return {forward_with<Sse2Exp>, backward_with<Sse2Exp>};
#endif
    default:
      return {forward_with<PortableExp>, backward_with<PortableExp>};
  }
}

std::atomic<SwigluBuild>& build_in_use() {
  static std::atomic<SwigluBuild> build{swiglu_builds().front()};
  return build;
}

GateRows gate_rows(const at::Tensor& p, const at::Tensor& rstd, const at::Tensor& gamma_g, const at::Tensor& gamma_u,
                   std::int64_t group_g, std::int64_t group_u, double eps, bool norm) {
  GateRows g;
  g.p = p.data_ptr<float>();
  g.rstd = rstd.data_ptr<float>();
  g.F = p.size(-1) / 2;
  g.norm = norm;
  g.group_g = norm ? group_g : g.F;
  g.group_u = norm ? group_u : g.F;
  if (norm) {
    g.gamma_g = gamma_g.data_ptr<float>();
    g.gamma_u = gamma_u.data_ptr<float>();
  }
  g.eps = static_cast<float>(eps);
  return g;
}

class FusedSwiglu : public torch::autograd::Function<FusedSwiglu> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor p, at::Tensor gamma_g, at::Tensor gamma_u,
                            std::int64_t group_g, std::int64_t group_u, double eps, bool norm) {
    p = p.contiguous();
    const std::int64_t F = p.size(-1) / 2, rows = p.numel() / (2 * F);
    const std::int64_t G = norm ? F / group_g + F / group_u : 0;
    at::Tensor rstd = at::empty({rows * G}, p.options());
    const GateRows g = gate_rows(p, rstd, gamma_g, gamma_u, group_g, group_u, eps, norm);
    auto sizes = p.sizes().vec();
    sizes.back() = F;
    at::Tensor h = at::empty(sizes, p.options());
    float* hp = h.data_ptr<float>();
    const auto forward = row_kernels_of(build_in_use().load()).forward;
    at::parallel_for(0, rows, row_grain(2 * F), [&](std::int64_t begin, std::int64_t end) { forward(g, hp, begin, end); });
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
    const GateRows g = gate_rows(p, saved[3], saved[1], saved[2], ctx->saved_data["group_g"].toInt(),
                                 ctx->saved_data["group_u"].toInt(), ctx->saved_data["eps"].toDouble(), norm);
    const at::Tensor gh = grads[0].contiguous();
    const std::int64_t rows = p.numel() / (2 * g.F);
    at::Tensor gp = at::empty(p.sizes(), p.options());
    WeightGradPartials gw_g(g.F, norm && ctx->needs_input_grad(1)), gw_u(g.F, norm && ctx->needs_input_grad(2));
    const float* ghp = gh.data_ptr<float>();
    float* gpp = gp.data_ptr<float>();
    const auto backward = row_kernels_of(build_in_use().load()).backward;
    at::parallel_for(0, rows, row_grain(2 * g.F), [&](std::int64_t begin, std::int64_t end) {
      BackwardScratch scratch(g);
      backward(g, ghp, gpp, gw_g.for_this_thread(), gw_u.for_this_thread(), scratch, begin, end);
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

std::vector<SwigluBuild> swiglu_builds() {
  std::vector<SwigluBuild> builds;
#ifdef GAMMALAB_SWIGLU_SLEEF_X86
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) builds.push_back(SwigluBuild::kAvx2);
  builds.push_back(SwigluBuild::kSse2);
#endif
  builds.push_back(SwigluBuild::kPortable);
  return builds;
}

void use_swiglu_build(SwigluBuild build) {
  const auto builds = swiglu_builds();
  if (std::find(builds.begin(), builds.end(), build) == builds.end()) {
    throw std::invalid_argument("use_swiglu_build: this binary or CPU cannot run the requested build");
  }
  build_in_use().store(build);
}

}  // namespace gammalab::trainer
