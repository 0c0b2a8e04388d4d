#include "worker/trainer/ffn.h"

namespace gammalab::trainer {

at::Tensor ffn_forward(const ParamStore& store, const Ffn& ffn, const at::Tensor& x, const ProjectOptions& options) {
  auto gu = project(store, x, {&ffn.gate, &ffn.up}, options);
  return at::linear(at::silu(gu[0]) * gu[1], store[ffn.down]);
}

}  // namespace gammalab::trainer
