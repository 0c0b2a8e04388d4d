// The fused CPU kernels on their own, against the plain ATen composition, on shapes the model tests do not
// reach: SwiGLU in each build of its row loops, with a vector tail and unequal Norm groups, and q/k/v heads for
// sequences shorter than the RoPE tables and heads wide enough for the vector loops.
#include <gtest/gtest.h>

#include <utility>

#include <torch/torch.h>

#include "worker/trainer/ops/qkv_heads.h"
#include "worker/trainer/ops/swiglu.h"

namespace gammalab::trainer {
namespace {

void expect_close(const at::Tensor& a, const at::Tensor& b, const char* what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  EXPECT_TRUE(torch::allclose(a, b, 1e-4, 1e-5)) << what << ": max abs diff " << (a - b).abs().max().item<float>();
}

// Restores the default SwiGLU build when a test that pins one ends.
struct SwigluBuildGuard {
  ~SwigluBuildGuard() { use_swiglu_build(swiglu_builds().front()); }
};

TEST(SwigluKernel, MatchesPlainOpsInEveryBuild) {
  // F = 50: 8-float vectors and a scalar tail; Norm groups equal for both halves or not (segments of a row then
  // end at the boundaries of either). Every build of the row loops this CPU runs (AVX2, SSE2, portable exp).
  const std::int64_t F = 50;
  SwigluBuildGuard restore;
  const auto builds = swiglu_builds();
  EXPECT_EQ(builds.back(), SwigluBuild::kPortable);
  struct Case {
    bool with_norm;
    std::int64_t group, up_group;
  };
  for (SwigluBuild build : builds) {
    use_swiglu_build(build);
    for (const Case& c : {Case{false, 0, 0}, Case{true, 0, 0}, Case{true, 10, 10}, Case{true, 10, 25}}) {
      SCOPED_TRACE("build " + std::to_string(static_cast<int>(build)) + " norm " + std::to_string(c.with_norm) +
                   " groups " + std::to_string(c.group) + "/" + std::to_string(c.up_group));
      torch::manual_seed(3);
      const at::Tensor p0 = torch::randn({7, 151, 2 * F});  // 1,057 rows: several chunks of parallel_for
      const at::Tensor g0 = torch::rand({F}) + 0.5, u0 = torch::rand({F}) + 0.5;
      const at::Tensor upstream = torch::randn({7, 151, F});
      at::Tensor out[2], grad_p[2], grad_g[2], grad_u[2];
      for (int plain = 0; plain < 2; ++plain) {
        at::Tensor p = p0.clone().requires_grad_(true);
        at::Tensor g = g0.clone().requires_grad_(true), u = u0.clone().requires_grad_(true);
        const SwigluNorm norm{g, u, c.group, c.up_group, 1e-5};
        out[plain] = swiglu(p, c.with_norm ? &norm : nullptr, /*fused=*/plain == 0);
        (out[plain] * upstream).sum().backward();
        grad_p[plain] = p.grad();
        grad_g[plain] = c.with_norm ? g.grad() : at::zeros({F});
        grad_u[plain] = c.with_norm ? u.grad() : at::zeros({F});
      }
      expect_close(out[0], out[1], "output");
      expect_close(grad_p[0], grad_p[1], "projection gradient");
      expect_close(grad_g[0], grad_g[1], "gate gamma gradient");
      expect_close(grad_u[0], grad_u[1], "up gamma gradient");
    }
  }
}

TEST(QkvHeadsKernel, MatchesPlainOpsForShortSequences) {
  // head_dim 8 takes RoPE's scalar loop; 24 its 8-float vectors and a scalar tail. v: a scale-free Norm per head,
  // or a Norm with γ over the whole branch.
  struct Case {
    QkvLayout layout;
    bool v_whole_with_gamma;
  };
  for (const Case& c : {Case{{4, 2, 8}, false}, Case{{2, 2, 24}, true}}) {
    const QkvLayout& layout = c.layout;
    SCOPED_TRACE("head_dim " + std::to_string(layout.head_dim));
    const RopeTables rope = make_rope_tables(/*seq_len=*/32, layout.head_dim, 10000.0, at::kCPU);
    const std::int64_t dq = layout.n_heads * layout.head_dim, dkv = layout.n_kv_heads * layout.head_dim;
    torch::manual_seed(4);
    const at::Tensor x0 = torch::randn({3, 11, dq + 2 * dkv});  // T = 11 < 32
    const at::Tensor gq0 = torch::rand({dq}) + 0.5, gk0 = torch::rand({layout.head_dim}) + 0.5;
    const at::Tensor gv0 = torch::rand({dkv}) + 0.5;
    at::Tensor out[2][3], grads[2][4];
    for (int plain = 0; plain < 2; ++plain) {
      at::Tensor x = x0.clone().requires_grad_(true);
      at::Tensor gq = gq0.clone().requires_grad_(true), gk = gk0.clone().requires_grad_(true);
      at::Tensor gv = gv0.clone().requires_grad_(true);
      // q: DNP-style Norm over the whole branch; k: QK-norm style, one γ per head.
      std::array<std::vector<HeadNorm>, 3> norms;
      norms[0].push_back({gq, 0});
      norms[1].push_back({gk, layout.head_dim});
      norms[2].push_back(c.v_whole_with_gamma ? HeadNorm{gv, 0} : HeadNorm{at::Tensor(), layout.head_dim});
      const QkvHeads h = qkv_heads(x, layout, norms, 1e-5, rope, /*fused=*/plain == 0);
      out[plain][0] = h.q;
      out[plain][1] = h.k;
      out[plain][2] = h.v;
      torch::manual_seed(5);
      (h.q * torch::randn(h.q.sizes())).sum().add((h.k * torch::randn(h.k.sizes())).sum())
          .add((h.v * torch::randn(h.v.sizes())).sum()).backward();
      grads[plain][0] = x.grad();
      grads[plain][1] = gq.grad();
      grads[plain][2] = gk.grad();
      grads[plain][3] = c.v_whole_with_gamma ? gv.grad() : at::zeros({dkv});
    }
    const char* outputs[3] = {"q", "k", "v"};
    const char* gradients[4] = {"input gradient", "q gamma gradient", "k gamma gradient", "v gamma gradient"};
    for (int i = 0; i < 3; ++i) expect_close(out[0][i], out[1][i], outputs[i]);
    for (int i = 0; i < 4; ++i) expect_close(grads[0][i], grads[1][i], gradients[i]);
  }
}

}  // namespace
}  // namespace gammalab::trainer
