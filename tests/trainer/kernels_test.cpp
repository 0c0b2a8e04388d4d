// The fused CPU kernels on their own, against the plain ATen composition, on shapes the model tests do not
// reach: SwiGLU over many blocks of rows with a partial last one, and q/k/v heads for sequences shorter than
// the RoPE tables.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "worker/trainer/qkv_heads.h"
#include "worker/trainer/swiglu.h"

namespace gammalab::trainer {
namespace {

void expect_close(const at::Tensor& a, const at::Tensor& b, const char* what) {
  ASSERT_EQ(a.sizes(), b.sizes()) << what;
  EXPECT_TRUE(torch::allclose(a, b, 1e-4, 1e-5)) << what << ": max abs diff " << (a - b).abs().max().item<float>();
}

TEST(SwigluKernel, MatchesPlainOpsAcrossBlocks) {
  const std::int64_t F = 48;
  for (bool with_norm : {false, true}) {
    for (std::int64_t group : {std::int64_t{0}, std::int64_t{16}}) {
      if (!with_norm && group != 0) continue;
      SCOPED_TRACE("norm " + std::to_string(with_norm) + " group " + std::to_string(group));
      torch::manual_seed(3);
      const at::Tensor p0 = torch::randn({7, 151, 2 * F});  // 1,057 rows: many blocks, the last one partial
      const at::Tensor g0 = torch::rand({F}) + 0.5, u0 = torch::rand({F}) + 0.5;
      const at::Tensor upstream = torch::randn({7, 151, F});
      at::Tensor out[2], grad_p[2], grad_g[2], grad_u[2];
      for (int plain = 0; plain < 2; ++plain) {
        at::Tensor p = p0.clone().requires_grad_(true);
        at::Tensor g = g0.clone().requires_grad_(true), u = u0.clone().requires_grad_(true);
        const SwigluNorm norm{g, u, group, group, 1e-5};
        out[plain] = swiglu(p, with_norm ? &norm : nullptr, /*fused=*/plain == 0);
        (out[plain] * upstream).sum().backward();
        grad_p[plain] = p.grad();
        grad_g[plain] = with_norm ? g.grad() : at::zeros({F});
        grad_u[plain] = with_norm ? u.grad() : at::zeros({F});
      }
      expect_close(out[0], out[1], "output");
      expect_close(grad_p[0], grad_p[1], "projection gradient");
      expect_close(grad_g[0], grad_g[1], "gate gamma gradient");
      expect_close(grad_u[0], grad_u[1], "up gamma gradient");
    }
  }
}

TEST(QkvHeadsKernel, MatchesPlainOpsForShortSequences) {
  const QkvLayout layout{4, 2, 8};
  const RopeTables rope = make_rope_tables(/*seq_len=*/32, layout.head_dim, 10000.0, at::kCPU);
  const std::int64_t width = (layout.n_heads + 2 * layout.n_kv_heads) * layout.head_dim;
  torch::manual_seed(4);
  const at::Tensor x0 = torch::randn({3, 11, width});  // T = 11 < 32
  const at::Tensor gq0 = torch::rand({32}) + 0.5, gk0 = torch::rand({8}) + 0.5;
  at::Tensor out[2][3], grads[2][3];
  for (int plain = 0; plain < 2; ++plain) {
    at::Tensor x = x0.clone().requires_grad_(true);
    at::Tensor gq = gq0.clone().requires_grad_(true), gk = gk0.clone().requires_grad_(true);
    // q: DNP-style Norm over the whole branch; k: QK-norm style, one γ per head; v: scale-free per head.
    std::array<std::vector<HeadNorm>, 3> norms;
    norms[0].push_back({gq, 0});
    norms[1].push_back({gk, layout.head_dim});
    norms[2].push_back({at::Tensor(), layout.head_dim});
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
  }
  const char* names[3] = {"q / input gradient", "k / q gamma gradient", "v / k gamma gradient"};
  for (int i = 0; i < 3; ++i) {
    expect_close(out[0][i], out[1][i], names[i]);
    expect_close(grads[0][i], grads[1][i], names[i]);
  }
}

}  // namespace
}  // namespace gammalab::trainer
