#pragma once
// A scale vector γ (docs/variants.md, Axes) and its parameterisation (the config's ScaleParam): plain γ,
// OR (γ = β·α) or ER (γ = exp(β + α)). Each carries its role (Input-Norm: followed by a linear map;
// Output-Norm: not), which weight decay reads.
#include <string>

#include <torch/torch.h>

#include "core/job_config.h"

namespace gammalab::trainer {

enum class ScaleRole { Input, Output };

inline const char* role_name(ScaleRole r) { return r == ScaleRole::Input ? "input" : "output"; }
// The raw α and β at which γ = 1: plain and OR 1 (γ = α, γ = β·α), ER 0 (γ = exp(β + α)).
inline double identity_value(ScaleParam p) { return p == ScaleParam::MagDirExp ? 0.0 : 1.0; }

struct ScaleVector {
  std::string name;
  std::int64_t size = 0;
  ScaleRole role = ScaleRole::Input;
  ScaleParam param = ScaleParam::Plain;
  int alpha = -1;  // index of α (plain: γ itself) in the model's parameter list
  int beta = -1;   // index of the scalar β (OR, ER), -1 for plain

  // γ from its raw parameters (differentiable).
  at::Tensor effective(const at::Tensor& alpha_t, const at::Tensor& beta_t) const {
    switch (param) {
      case ScaleParam::Plain: return alpha_t;
      case ScaleParam::MagDirOrig: return alpha_t * beta_t;
      case ScaleParam::MagDirExp: return at::exp(alpha_t + beta_t);
    }
    return alpha_t;
  }
};

}  // namespace gammalab::trainer
