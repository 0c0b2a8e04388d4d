#include "worker/trainer/model/pre_norm.h"

#include "worker/trainer/ops/rms_norm.h"

namespace gammalab::trainer {

at::Tensor pre_norm(const ParamStore& store, const PreNorm& site, const at::Tensor& h, double eps, bool fused) {
  const std::int64_t d = h.size(-1);
  switch (site.kind) {
    case NormKind::Rms:
    case NormKind::PeriLn:
      return rms_norm(h, d, eps, {}, fused);
    case NormKind::LnScaling:
      return rms_norm(h, d, eps, {}, fused) * site.depth_factor;
    case NormKind::PreAffine:
      return rms_norm(h * store.gamma(site.affine), d, eps, {}, fused);
    case NormKind::SeedNorm: {
      const at::Tensor dynamic = at::tanh(at::matmul(h, store[site.dot]).unsqueeze(-1)) * store[site.alpha];
      return rms_norm(h, d, eps, {}, fused) * (dynamic + store.gamma(site.gamma));
    }
    case NormKind::Gated: {
      const at::Tensor u = rms_norm(h, d, eps, store.gamma(site.gamma), fused);
      return u * at::sigmoid(at::linear(at::silu(at::linear(u, store[site.gate_down])), store[site.gate_up]));
    }
    case NormKind::Dyt:
      return store.gamma(site.gamma) * at::tanh(store[site.alpha] * h) + store[site.bias];
    case NormKind::Derf:
      return store.gamma(site.gamma) * at::erf(store[site.alpha] * h + store[site.shift]) + store[site.bias];
  }
  return h;
}

}  // namespace gammalab::trainer
