#include "worker/trainer/sharpness.h"

#include <cmath>

#include "worker/trainer/torch_compat.h"

namespace gammalab::trainer {

namespace {

at::Tensor dot(const std::vector<at::Tensor>& a, const std::vector<at::Tensor>& b) {
  at::Tensor s = at::zeros({}, a.front().options());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].defined() && b[i].defined()) s = s + (a[i] * b[i]).sum();
  }
  return s;
}

}  // namespace

double estimate_sharpness(const Model& model, const at::Tensor& tokens, const at::Tensor& targets, int iterations,
                          std::uint64_t seed) {
  const std::vector<at::Tensor> params = model.parameters();
  at::Tensor loss = model.loss(tokens, targets, /*twice_differentiable=*/true).total();
  std::vector<at::Tensor> grads = torch::autograd::grad({loss}, params, {}, /*retain_graph=*/true,
                                                        /*create_graph=*/true, /*allow_unused=*/true);
  at::Generator gen = make_cpu_generator(seed);
  std::vector<at::Tensor> v;
  for (const auto& p : params) v.push_back(at::randn(p.sizes(), gen, at::kFloat).to(p.device()));
  double norm = std::sqrt(dot(v, v).item<double>());
  for (auto& t : v) t.div_(norm);
  double eigen = 0.0;
  for (int it = 0; it < iterations; ++it) {
    at::Tensor gv = dot(grads, v);
    std::vector<at::Tensor> hv = torch::autograd::grad({gv}, params, {}, /*retain_graph=*/true,
                                                       /*create_graph=*/false, /*allow_unused=*/true);
    for (std::size_t i = 0; i < hv.size(); ++i) {
      if (!hv[i].defined()) hv[i] = at::zeros_like(params[i]);
    }
    eigen = dot(v, hv).item<double>();
    norm = std::sqrt(dot(hv, hv).item<double>());
    if (norm == 0.0) break;
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = hv[i] / norm;
  }
  return eigen;
}

}  // namespace gammalab::trainer
