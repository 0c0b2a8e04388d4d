#include "worker/trainer/attention.h"

#include "worker/trainer/rms_norm.h"
#include "worker/trainer/torch_compat.h"

namespace gammalab::trainer {

at::Tensor attention_forward(const ParamStore& store, const Attention& attn, const AttentionShape& s,
                             const at::Tensor& x, const BlockContext& ctx) {
  const std::int64_t B = x.size(0), T = x.size(1);
  auto qkv = project(store, x, {&attn.q, &attn.k, &attn.v}, ctx.project);
  at::Tensor q = qkv[0].reshape({B, T, s.n_heads, s.head_dim});
  at::Tensor k = qkv[1].reshape({B, T, s.n_kv_heads, s.head_dim});
  at::Tensor v = qkv[2].reshape({B, T, s.n_kv_heads, s.head_dim});
  const bool fused = ctx.project.fused;
  if (attn.qk_norm) {
    q = rms_norm(q, s.head_dim, ctx.project.eps, store.gamma(attn.q_norm), fused);
    k = rms_norm(k, s.head_dim, ctx.project.eps, store.gamma(attn.k_norm), fused);
  }
  q = apply_rope(q, *ctx.rope, fused).transpose(1, 2);
  k = apply_rope(k, *ctx.rope, fused).transpose(1, 2);
  v = v.transpose(1, 2);
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
