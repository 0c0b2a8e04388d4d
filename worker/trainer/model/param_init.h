#pragma once
// How a parameter starts, decided where the model creates it (as torchtitan's param_init): the layer's index is
// passed in there, never read back from a name. Model::init draws every parameter, in creation order, from one
// generator. The Llama/torchtitan scheme: embedding N(0, 1); q, k, v, gate, up, router trunc-normal 0.02 within
// 2σ; o and down trunc-normal depth_scaled_std(0.02, layer) within 2σ; lm_head trunc-normal d^-1/2 within 3σ;
// scale vectors at γ = 1.
#include <cmath>

#include <torch/torch.h>

namespace gammalab::trainer {

struct ParamInit {
  enum class Kind { Normal, TruncNormal, Fill };
  Kind kind = Kind::Fill;
  double std = 0.0;     // Normal and TruncNormal, with mean 0
  double cutoff = 0.0;  // TruncNormal: the bounds ±cutoff·std
  double value = 0.0;   // Fill

  static ParamInit normal(double std) { return {Kind::Normal, std, 0.0, 0.0}; }
  static ParamInit trunc_normal(double std, double cutoff) { return {Kind::TruncNormal, std, cutoff, 0.0}; }
  static ParamInit fill(double value) { return {Kind::Fill, 0.0, 0.0, value}; }

  // Fills `t` (float32, on the CPU) from `gen`; Fill draws nothing.
  void apply(at::Tensor& t, at::Generator& gen) const;
};

// The std of a residual branch's output projection in layer `layer` (from 0): std / sqrt(2 (layer + 1)), so that
// deeper layers add less to the residual stream at the start.
inline double depth_scaled_std(double std, int layer) { return std / std::sqrt(2.0 * (layer + 1)); }

}  // namespace gammalab::trainer
