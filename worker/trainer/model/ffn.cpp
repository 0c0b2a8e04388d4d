#include "worker/trainer/model/ffn.h"

#include "worker/trainer/ops/swiglu.h"

namespace gammalab::trainer {

at::Tensor ffn_forward(const ParamStore& store, const Ffn& ffn, const at::Tensor& x, const ProjectOptions& options) {
  const at::Tensor gate_up = project(store, x, {&ffn.gate, &ffn.up}, options);
  if (!options.dual_norm) return at::linear(swiglu(gate_up, nullptr, options.fused), store[ffn.down]);
  const SwigluNorm norm{store.gamma(ffn.gate.out_scale), store.gamma(ffn.up.out_scale), ffn.gate.norm_group,
                        ffn.up.norm_group, options.eps};
  return at::linear(swiglu(gate_up, &norm, options.fused), store[ffn.down]);
}

}  // namespace gammalab::trainer
