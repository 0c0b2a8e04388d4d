// Invariant 3 (docs/variants.md, Invariants): the implicit preconditioners of scale vectors, checked to first
// order on the model's own gradients. One SGD step of size η on (W, γ) moves column j of E = W diag(γ) by -η (γ_j² I + w_j w_jᵀ) g_j;
// OR moves γ = β α by -η (β² I + α αᵀ) g, ER moves γ = exp(β + α) by -η (diag(γ)² + γ γᵀ) g, with g the
// gradient with respect to E (resp. γ). The remainder must shrink like η².
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "core/model_preset.h"
#include "worker/trainer/model/model.h"

namespace gammalab::trainer {
namespace {

ModelSpec preconditioner_spec() {
  return {.vocab_size = 40, .n_layers = 1, .d_model = 16, .n_heads = 2, .ffn_hidden = 24, .seq_len = 12};
}

struct Grads {
  std::map<std::string, at::Tensor> value, grad;
};

Grads gradients(const std::string& variant, std::uint64_t seed) {
  Model model(preconditioner_spec(), variant_preset(variant));
  model.init(seed);
  {
    torch::NoGradGuard no_grad;
    torch::manual_seed(seed);
    for (auto& p : model.store().params()) {
      if (p.is_scale()) p.tensor.add_(0.3 * torch::randn(p.tensor.sizes()));
    }
  }
  torch::manual_seed(seed + 1);
  const at::Tensor tokens = torch::randint(40, {4, 13}, torch::kLong);
  model.loss(tokens.narrow(1, 0, 12), tokens.narrow(1, 1, 12)).total().backward();
  Grads g;
  for (const auto& p : model.store().params()) {
    g.value[p.name] = p.tensor.detach().to(at::kDouble);
    g.grad[p.name] = p.tensor.grad().to(at::kDouble);
  }
  return g;
}

// |actual - predicted| / |predicted| for two step sizes; first order means it falls ~10x when η does.
// `unit`: a step size at which the update is about as large as the parameter (the gradients are small).
void expect_first_order(double unit, const std::function<std::pair<at::Tensor, at::Tensor>(double)>& step) {
  double rel[2];
  const double etas[2] = {1e-2 * unit, 1e-3 * unit};
  for (int i = 0; i < 2; ++i) {
    auto [actual, predicted] = step(etas[i]);
    rel[i] = ((actual - predicted).norm() / predicted.norm()).item<double>();
  }
  EXPECT_LT(rel[1], 1e-2);
  EXPECT_LT(rel[1], rel[0] / 5.0) << rel[0] << " -> " << rel[1];
}

TEST(Preconditioner, ColumnsOfWDiagGamma) {
  // HG: branch q has its own γ_q, so E = W_q diag(γ_q) is exactly the product of two parameters.
  const Grads g = gradients("hg", 3);
  const at::Tensor W = g.value.at("layers.0.attn.wq"), gamma = g.value.at("layers.0.attn.q_in");
  const at::Tensor gW = g.grad.at("layers.0.attn.wq"), ggamma = g.grad.at("layers.0.attn.q_in");
  const at::Tensor gE = gW / gamma.unsqueeze(0);  // dL/dW = dL/dE diag(γ)
  // Chain rule through the model: dL/dγ_j = w_jᵀ g_j.
  EXPECT_TRUE(torch::allclose(ggamma, (W * gE).sum(0), 1e-4, 1e-7));
  const at::Tensor E = W * gamma.unsqueeze(0);
  expect_first_order((W.norm() / gW.norm()).item<double>(), [&](double eta) {
    const at::Tensor E1 = (W - eta * gW) * (gamma - eta * ggamma).unsqueeze(0);
    // -η (γ_j² g_j + w_j w_jᵀ g_j) for every column j at once.
    const at::Tensor predicted = -eta * (gE * gamma.pow(2).unsqueeze(0) + W * (W * gE).sum(0).unsqueeze(0));
    return std::make_pair(E1 - E, predicted);
  });
}

TEST(Preconditioner, MagnitudeDirectionOriginal) {
  const Grads g = gradients("or", 4);
  const at::Tensor a = g.value.at("layers.0.attn_norm.alpha"), b = g.value.at("layers.0.attn_norm.beta");
  const at::Tensor ga = g.grad.at("layers.0.attn_norm.alpha"), gb = g.grad.at("layers.0.attn_norm.beta");
  const at::Tensor grad_gamma = ga / b;  // dL/dα = β g
  EXPECT_TRUE(torch::allclose(gb, (a * grad_gamma).sum().reshape({1}), 1e-4, 1e-7));  // dL/dβ = αᵀ g
  expect_first_order((a.norm() / ga.norm()).item<double>(), [&](double eta) {
    const at::Tensor gamma0 = b * a, gamma1 = (b - eta * gb) * (a - eta * ga);
    const at::Tensor predicted = -eta * (b.pow(2) * grad_gamma + a * (a * grad_gamma).sum());
    return std::make_pair(gamma1 - gamma0, predicted);
  });
}

TEST(Preconditioner, MagnitudeDirectionExponential) {
  const Grads g = gradients("er", 5);
  const at::Tensor a = g.value.at("layers.0.ffn_norm.alpha"), b = g.value.at("layers.0.ffn_norm.beta");
  const at::Tensor ga = g.grad.at("layers.0.ffn_norm.alpha"), gb = g.grad.at("layers.0.ffn_norm.beta");
  const at::Tensor gamma0 = at::exp(a + b);
  const at::Tensor grad_gamma = ga / gamma0;  // dL/dα = γ ⊙ g
  EXPECT_TRUE(torch::allclose(gb, (gamma0 * grad_gamma).sum().reshape({1}), 1e-4, 1e-7));
  expect_first_order((1.0 / ga.norm()).item<double>(), [&](double eta) {
    const at::Tensor gamma1 = at::exp((a - eta * ga) + (b - eta * gb));
    const at::Tensor predicted = -eta * (gamma0.pow(2) * grad_gamma + gamma0 * (gamma0 * grad_gamma).sum());
    return std::make_pair(gamma1 - gamma0, predicted);
  });
}

}  // namespace
}  // namespace gammalab::trainer
