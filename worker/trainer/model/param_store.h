#pragma once
// Every trainable tensor of a model with the tags the optimizer and the reports read: what kind of parameter
// it is and, for scale vectors, its role; and how it is initialised, decided where it is added. Sub-blocks refer to parameters by index so that moving the model to
// another device (which replaces the tensors) keeps them valid.
#include <string>
#include <vector>

#include <torch/torch.h>

#include "worker/trainer/model/param_init.h"
#include "worker/trainer/model/scale_vector.h"

namespace gammalab::trainer {

// NormParam: a 2026 arm's own Pre-Norm parameter that is not a scale vector or a matrix (DyT's and Derf's α, s
// and bias, SeeDNorm's α and β; docs/variants.md, "The 2026 arms"): AdamW, never decayed.
enum class ParamKind { Embedding, LmHead, Matrix, Router, ScaleAlpha, ScaleBeta, NormParam };
const char* kind_name(ParamKind k);

struct Param {
  std::string name;
  at::Tensor tensor;
  ParamKind kind = ParamKind::Matrix;
  ScaleRole role = ScaleRole::Input;  // scale parameters only
  int scale = -1;                      // index of the ScaleVector it belongs to
  ParamInit init;                      // what Model::init draws it from
  bool is_scale() const { return kind == ParamKind::ScaleAlpha || kind == ParamKind::ScaleBeta; }
};

class ParamStore {
 public:
  int add(std::string name, at::Tensor tensor, ParamKind kind, ParamInit init);
  // Adds α (and β for OR/ER), initialised to γ = 1; returns the index of the new ScaleVector.
  int add_scale(const std::string& name, std::int64_t size, ScaleRole role, ScaleParam param);

  const at::Tensor& operator[](int i) const { return params_[static_cast<std::size_t>(i)].tensor; }
  // Effective γ of a scale vector (differentiable); undefined tensor for index -1.
  at::Tensor gamma(int scale) const;

  std::vector<Param>& params() { return params_; }
  const std::vector<Param>& params() const { return params_; }
  const std::vector<ScaleVector>& scales() const { return scales_; }
  int find(const std::string& name) const;  // -1 if absent
  std::int64_t numel() const;

 private:
  std::vector<Param> params_;
  std::vector<ScaleVector> scales_;
};

}  // namespace gammalab::trainer
