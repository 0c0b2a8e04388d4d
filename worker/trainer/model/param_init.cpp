#include "worker/trainer/model/param_init.h"

namespace gammalab::trainer {

namespace {

// PyTorch's trunc_normal_: inverse-CDF sampling within [-cutoff σ, cutoff σ].
void sample_trunc_normal(at::Tensor& t, double std, double cutoff, at::Generator& gen) {
  auto cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  const double lo = cdf(-cutoff), hi = cdf(cutoff);
  t.uniform_(2 * lo - 1, 2 * hi - 1, gen).erfinv_().mul_(std * std::sqrt(2.0)).clamp_(-cutoff * std, cutoff * std);
}

}  // namespace

void ParamInit::apply(at::Tensor& t, at::Generator& gen) const {
  switch (kind) {
    case Kind::Normal: t.normal_(0.0, std, gen); break;
    case Kind::TruncNormal: sample_trunc_normal(t, std, cutoff, gen); break;
    case Kind::Fill: t.fill_(value); break;
  }
}

}  // namespace gammalab::trainer
