#include "worker/trainer/model/moe.h"

#include "worker/trainer/torch_compat.h"

namespace gammalab::trainer {

RouterOutput route(const ParamStore& store, const Moe& moe, const at::Tensor& xf) {
  const AutocastSuspended float32;
  at::Tensor router_w = store[moe.router].to(at::kFloat);
  if (moe.router_in >= 0) router_w = router_w * store.gamma(moe.router_in).to(at::kFloat).unsqueeze(0);
  at::Tensor logits = at::linear(xf.to(at::kFloat), router_w);  // [N, E]
  return {logits, at::softmax(logits, -1)};
}

at::Tensor moe_forward(const ParamStore& store, const Moe& moe, const at::Tensor& x, const ProjectOptions& options,
                       at::Tensor& aux) {
  const std::int64_t d = x.size(-1), E = static_cast<std::int64_t>(moe.experts.size());
  at::Tensor xf = x.reshape({-1, d});
  const std::int64_t N = xf.size(0);
  const RouterOutput router = route(store, moe, xf);
  const at::Tensor& logits = router.logits;
  const at::Tensor& probs = router.probs;
  auto [top_p, top_i] = probs.topk(moe.top_k, -1);  // OLMoE: top-k probabilities are not renormalised

  // Group the (token, slot) assignments by expert with one sort instead of E scans.
  at::Tensor flat_e = top_i.reshape({-1});
  at::Tensor order = flat_e.argsort();
  at::Tensor counts = at::bincount(flat_e, {}, E).to(at::kCPU);
  at::Tensor tokens = order.div(moe.top_k, "floor");
  at::Tensor weights = top_p.reshape({-1}).index_select(0, order);
  const auto* count = counts.data_ptr<std::int64_t>();

  at::Tensor out = at::zeros_like(xf);
  std::int64_t start = 0;
  for (std::int64_t e = 0; e < E; ++e) {
    const std::int64_t n = count[e];
    if (n == 0) continue;
    at::Tensor tok = tokens.narrow(0, start, n);
    at::Tensor w = weights.narrow(0, start, n).unsqueeze(1);
    at::Tensor y = ffn_forward(store, moe.experts[static_cast<std::size_t>(e)], xf.index_select(0, tok), options);
    out = out.index_add(0, tok, (y * w).to(out.scalar_type()));  // the float32 router weight, back to x's dtype
    start += n;
  }

  // Load balancing (Switch/OLMoE): E · Σ_e f_e P_e with f_e the fraction of assignments to e.
  at::Tensor f = counts.to(probs.device(), at::kFloat) / double(N * moe.top_k);
  at::Tensor lb = double(E) * (f * probs.mean(0)).sum();
  at::Tensor z;
  {
    const AutocastSuspended float32;  // logsumexp of float32 logits stays float32
    z = at::logsumexp(logits, -1).pow(2).mean();
  }
  aux = aux + moe.aux_loss_weight * lb + moe.z_loss_weight * z;
  return out.reshape(x.sizes());
}

}  // namespace gammalab::trainer
