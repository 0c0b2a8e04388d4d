#include "worker/trainer/model/param_store.h"

namespace gammalab::trainer {

const char* kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::Embedding: return "embedding";
    case ParamKind::LmHead: return "lm_head";
    case ParamKind::Matrix: return "matrix";
    case ParamKind::Router: return "router";
    case ParamKind::ScaleAlpha: return "scale";
    case ParamKind::ScaleBeta: return "scale_beta";
    case ParamKind::NormParam: return "norm";
  }
  return "?";
}

int ParamStore::add(std::string name, at::Tensor tensor, ParamKind kind, ParamInit init) {
  Param p;
  p.name = std::move(name);
  p.tensor = std::move(tensor);
  p.kind = kind;
  p.init = init;
  params_.push_back(std::move(p));
  return static_cast<int>(params_.size()) - 1;
}

int ParamStore::add_scale(const std::string& name, std::int64_t size, ScaleRole role, ScaleParam param) {
  ScaleVector sv;
  sv.name = name;
  sv.size = size;
  sv.role = role;
  sv.param = param;
  const int index = static_cast<int>(scales_.size());
  const std::string alpha_name = param == ScaleParam::Plain ? name : name + ".alpha";
  const ParamInit one = ParamInit::fill(identity_value(param));
  sv.alpha = add(alpha_name, at::empty({size}), ParamKind::ScaleAlpha, one);
  params_[static_cast<std::size_t>(sv.alpha)].role = role;
  params_[static_cast<std::size_t>(sv.alpha)].scale = index;
  if (param != ScaleParam::Plain) {
    sv.beta = add(name + ".beta", at::empty({1}), ParamKind::ScaleBeta, one);
    params_[static_cast<std::size_t>(sv.beta)].role = role;
    params_[static_cast<std::size_t>(sv.beta)].scale = index;
  }
  scales_.push_back(sv);
  return index;
}

at::Tensor ParamStore::gamma(int scale) const {
  if (scale < 0) return {};
  const ScaleVector& sv = scales_[static_cast<std::size_t>(scale)];
  return sv.effective((*this)[sv.alpha], sv.beta >= 0 ? (*this)[sv.beta] : at::Tensor());
}

int ParamStore::find(const std::string& name) const {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    if (params_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

std::int64_t ParamStore::numel() const {
  std::int64_t n = 0;
  for (const auto& p : params_) n += p.tensor.numel();
  return n;
}

}  // namespace gammalab::trainer
