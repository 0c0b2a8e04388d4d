#include "worker/trainer/model/attention.h"

#include "worker/trainer/ops/qkv_heads.h"
#include "worker/trainer/torch_compat.h"

namespace gammalab::trainer {

at::Tensor attention_forward(const ParamStore& store, const Attention& attn, const AttentionShape& s,
                             const at::Tensor& x, const BlockContext& ctx) {
  const std::int64_t B = x.size(0), T = x.size(1);
  const at::Tensor qkv = project(store, x, {&attn.q, &attn.k, &attn.v}, ctx.project);
  // The Norms between the projection and RoPE: DNP's (γ_a ⊙ Norm per branch), then QK-norm's on q and k.
  std::array<std::vector<HeadNorm>, 3> norms;
  if (ctx.project.dual_norm) {
    const Branch* branches[3] = {&attn.q, &attn.k, &attn.v};
    for (std::size_t c = 0; c < 3; ++c) norms[c].push_back({store.gamma(branches[c]->out_scale), branches[c]->norm_group});
  }
  if (attn.qk_norm) {
    norms[0].push_back({store.gamma(attn.q_norm), s.head_dim});
    norms[1].push_back({store.gamma(attn.k_norm), s.head_dim});
  }
  auto [q, k, v] = qkv_heads(qkv, {s.n_heads, s.n_kv_heads, s.head_dim}, norms, ctx.project.eps, *ctx.rope,
                             ctx.project.fused);
  if (s.n_kv_heads != s.n_heads) {
    const std::int64_t rep = s.n_heads / s.n_kv_heads;
    k = k.repeat_interleave(rep, 1);
    v = v.repeat_interleave(rep, 1);
  }
  at::Tensor mask = ctx.mask->narrow(0, 0, T).narrow(1, 0, T);
  at::Tensor y = causal_attention(q, k, v, mask, ctx.twice_differentiable);
  y = y.transpose(1, 2).reshape({B, T, s.n_heads * s.head_dim});
  return at::linear(y, store[attn.wo]);
}

}  // namespace gammalab::trainer
