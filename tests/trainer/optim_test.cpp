// Schedules, parameter groups (weight decay by role), AdamW and Muon updates, and Muon's LR (optim.lr by default).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/model_preset.h"
#include "worker/trainer/kernels/adamw_cpu.h"
#include "worker/trainer/optim/muon.h"
#include "worker/trainer/optim/optimizer.h"
#include "core/lr_schedule.h"

namespace gammalab::trainer {
namespace {

TEST(Schedule, CosineWsdConstant) {
  ScheduleSpec s;
  s.warmup_steps = 10;
  s.min_lr_ratio = 0.1;
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 1, 100), 0.1);
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 10, 100), 1.0);
  EXPECT_NEAR(lr_multiplier(s, 55, 100), 0.55, 1e-12);  // half way: (1 + 0.1) / 2
  EXPECT_NEAR(lr_multiplier(s, 100, 100), 0.1, 1e-12);
  s.kind = ScheduleKind::Wsd;
  s.decay_start = 0.8;
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 80, 100), 1.0);
  EXPECT_NEAR(lr_multiplier(s, 90, 100), 0.5, 1e-12);
  EXPECT_NEAR(lr_multiplier(s, 100, 100), 0.0, 1e-12);
  s.kind = ScheduleKind::Constant;
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 5, 100), 0.5);
  EXPECT_DOUBLE_EQ(lr_multiplier(s, 99, 100), 1.0);
}

ModelSpec small() { return {.vocab_size = 32, .n_layers = 1, .d_model = 16, .n_heads = 2, .seq_len = 8}; }

TEST(ParamGroups, WeightDecayFollowsRoles) {
  JobConfig c;
  c.model = small();
  for (const std::string v : {"baseline", "iwd", "unified"}) {
    c.scale = variant_preset(v);
    Model model(c.model, c.scale);
    for (const auto& g : build_param_groups(model.store(), c)) {
      const Param& p = model.store().params()[static_cast<std::size_t>(g.index)];
      double expected = 0.1;
      if (p.is_scale()) expected = (c.scale.decay == ScaleDecay::InputOnly && p.role == ScaleRole::Input) ? 0.1 : 0.0;
      EXPECT_EQ(g.weight_decay, expected) << v << " " << p.name;
      EXPECT_FALSE(g.muon);
    }
  }
  c.scale = variant_preset("baseline");
  c.optim.name = OptimizerKind::Muon;
  Model model(c.model, c.scale);
  for (const auto& g : build_param_groups(model.store(), c)) {
    const Param& p = model.store().params()[static_cast<std::size_t>(g.index)];
    EXPECT_EQ(g.muon, p.kind == ParamKind::Matrix) << p.name;
  }
}

TEST(Muon, NewtonSchulzApproximatelyOrthogonalises) {
  torch::manual_seed(1);
  const at::Tensor g = torch::randn({24, 40});
  const at::Tensor o = newton_schulz(g, 5);
  // The quintic iteration pushes singular values into roughly [0.7, 1.2] (not exactly 1, by design).
  const at::Tensor sv = std::get<1>(at::linalg_svd(o, false));
  EXPECT_GT(sv.min().item<double>(), 0.5);
  EXPECT_LT(sv.max().item<double>(), 1.3);
}

TEST(Muon, UpdateScaleAndDecoupledDecay) {
  torch::manual_seed(2);
  at::Tensor p = torch::randn({8, 32}), grad = torch::randn({8, 32}), buf = torch::zeros({8, 32});
  const at::Tensor p0 = p.clone();
  muon_update(p, grad, buf, 0.01, 0.95, 0.1, 5);
  // buf = g, nesterov g + 0.95 g; the update is NS(1.95 g) scaled by 0.2 sqrt(32) after decay (1 - lr wd).
  const at::Tensor expected = p0 * (1 - 0.01 * 0.1) - 0.01 * 0.2 * std::sqrt(32.0) * newton_schulz(grad * 1.95, 5);
  EXPECT_TRUE(torch::allclose(p, expected, 1e-5, 1e-6));
  EXPECT_TRUE(torch::equal(buf, grad));
}

// One backward pass of the small() model on random tokens (seeded) and one optimizer step at `mult`; returns the
// parameters from before the step (their gradients stay in place).
std::vector<at::Tensor> step_on_random_tokens(Model& model, Optimizer& opt, std::uint64_t seed, double mult) {
  std::vector<at::Tensor> before;
  for (const auto& p : model.store().params()) before.push_back(p.tensor.detach().clone());
  torch::manual_seed(seed);
  const at::Tensor tokens = torch::randint(32, {2, 9}, torch::kLong);
  model.loss(tokens.narrow(1, 0, 8), tokens.narrow(1, 1, 8)).total().backward();
  opt.step(mult);
  return before;
}

// One optimizer step at `mult` of a Muon run (Nesterov 0.95, weight decay 0.1; muon_lr as given, else the default): each Muon matrix must move as
// muon_update with the LR `expected_muon_lr` (times mult) and each AdamW tensor by lr × mult (its first step).
void expect_learning_rates(std::optional<double> muon_lr, double expected_muon_lr) {
  JobConfig c;
  c.model = small();
  c.scale = variant_preset("unified");
  c.optim.name = OptimizerKind::Muon;
  c.optim.lr = 1e-3;
  if (muon_lr) c.optim.muon_lr = muon_lr;  // else the default
  const double mult = 0.5;
  Model model(c.model, c.scale);
  Optimizer opt(model, c);
  const std::vector<at::Tensor> before = step_on_random_tokens(model, opt, 7, mult);
  int muon = 0, adamw = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    const Param& p = model.store().params()[i];
    const at::Tensor g = p.tensor.grad();
    const double decay = opt.groups()[i].weight_decay;
    if (opt.groups()[i].muon) {
      at::Tensor expected = before[i].clone(), buf = at::zeros_like(g);
      muon_update(expected, g, buf, expected_muon_lr * mult, 0.95, decay, 5);
      EXPECT_TRUE(torch::allclose(p.tensor.detach(), expected, 1e-5, 1e-7)) << p.name;
      ++muon;
    } else {
      const double lr = c.optim.lr * mult;
      const at::Tensor expected = before[i] * (1 - lr * decay) - lr * g / (g.abs() + 1e-8);
      EXPECT_TRUE(torch::allclose(p.tensor.detach(), expected, 1e-4, 1e-6)) << p.name;
      ++adamw;
    }
  }
  EXPECT_GT(muon, 0);
  EXPECT_GT(adamw, 0);
}

// Moonlight's rule: with optim.muon_lr unset, Muon's matrices take optim.lr and its schedule multiplier (and the
// decoupled decay lr × λ that goes with it), as AdamW's tensors do.
TEST(Muon, DefaultLrIsTheAdamWLr) { expect_learning_rates(std::nullopt, 1e-3); }

// Set, optim.muon_lr overrides the LR of the Muon matrices only (still times the multiplier).
TEST(Muon, MuonLrOverridesTheMatrixLr) { expect_learning_rates(5e-3, 5e-3); }

// The point of the shared LR: Muon's RMS-matched update (0.2·sqrt(max(rows, cols)) times the orthogonalised
// momentum) moves each entry about as far as AdamW's at the same LR. A 256×128 matrix, random gradients,
// weight decay 0, each optimizer at the LR the config gives it by default; the RMS of the per-entry update
// over the last steps (AdamW's first steps are sign-like, larger than its steady state).
TEST(Muon, UpdateRmsMatchesAdamWAtTheDefaultLr) {
  OptimSpec spec;
  spec.lr = 1e-3;
  spec.weight_decay = 0.0;
  const double muon_lr = spec.muon_peak_lr(), lr = spec.lr;
  torch::manual_seed(8);
  const at::Tensor start = torch::randn({256, 128}) * 0.02;
  at::Tensor muon_p = start.clone(), buf = torch::zeros_like(start);
  at::Tensor adam_p = start.clone(), m = torch::zeros_like(start), v = torch::zeros_like(start);
  const int steps = 30, measured = 10;
  double muon_sq = 0.0, adam_sq = 0.0;
  for (int t = 1; t <= steps; ++t) {
    const at::Tensor g = torch::randn({256, 128});
    const at::Tensor muon_before = muon_p.clone(), adam_before = adam_p.clone();
    muon_update(muon_p, g, buf, muon_lr, spec.muon_momentum, spec.weight_decay, spec.muon_ns_steps);
    const double bc1 = 1 - std::pow(spec.beta1, t), bc2 = 1 - std::pow(spec.beta2, t);
    m.lerp_(g, 1 - spec.beta1);
    v.mul_(spec.beta2).addcmul_(g, g, 1 - spec.beta2);
    adam_p.addcdiv_(m, (v / bc2).sqrt_().add_(spec.eps), -lr / bc1);
    if (t > steps - measured) {
      muon_sq += (muon_p - muon_before).pow(2).mean().item<double>();
      adam_sq += (adam_p - adam_before).pow(2).mean().item<double>();
    }
  }
  const double muon_rms = std::sqrt(muon_sq / measured), adam_rms = std::sqrt(adam_sq / measured);
  const double ratio = muon_rms / adam_rms;
  std::printf("update RMS per entry: Muon %.3g, AdamW %.3g (each / lr: %.3f, %.3f), ratio %.3f\n", muon_rms, adam_rms,
              muon_rms / muon_lr, adam_rms / lr, ratio);
  EXPECT_GE(ratio, 0.5);
  EXPECT_LE(ratio, 2.0);
}

TEST(AdamW, FirstStepMovesEachEntryByLr) {
  JobConfig c;
  c.model = small();
  c.scale = variant_preset("iwd");
  c.optim.lr = 1e-2;
  Model model(c.model, c.scale);
  Optimizer opt(model, c);
  const std::vector<at::Tensor> before = step_on_random_tokens(model, opt, 3, 1.0);
  for (std::size_t i = 0; i < before.size(); ++i) {
    const Param& p = model.store().params()[i];
    const double wd = opt.groups()[i].weight_decay;
    // Step 1 of Adam: m̂ / (sqrt(v̂) + eps) = g / (|g| + eps), after the decoupled decay.
    const at::Tensor g = p.tensor.grad();
    const at::Tensor expected = before[i] * (1 - 1e-2 * wd) - 1e-2 * g / (g.abs() + 1e-8);
    EXPECT_TRUE(torch::allclose(p.tensor.detach(), expected, 1e-4, 1e-5)) << p.name;
  }
}

// Clipping returns the global norm before clipping and scales every gradient by clip / norm when above the clip,
// leaving them unchanged otherwise. The wider model's embedding (32,768 entries) is split over two threads.
TEST(Optimizer, ClipGradientsScalesToTheGlobalNorm) {
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const ModelSpec wide{.vocab_size = 512, .n_layers = 1, .d_model = 64, .n_heads = 2, .seq_len = 8};
  for (const ModelSpec& spec : {small(), wide}) {
    for (double clip : {1e-3, 1e6}) {
      JobConfig c;
      c.model = spec;
      c.scale = variant_preset("unified");
      c.optim.grad_clip = clip;
      Model model(c.model, c.scale);
      Optimizer opt(model, c);
      torch::manual_seed(4);
      const at::Tensor tokens = torch::randint(spec.vocab_size, {2, 9}, torch::kLong);
      model.loss(tokens.narrow(1, 0, 8), tokens.narrow(1, 1, 8)).total().backward();
      std::vector<at::Tensor> before;
      double sum = 0.0;
      for (const auto& p : model.store().params()) {
        before.push_back(p.tensor.grad().clone());
        sum += before.back().pow(2).sum().item<double>();
      }
      const double norm = std::sqrt(sum);
      ASSERT_GT(norm, 1e-2);
      EXPECT_NEAR(opt.clip_gradients().item<double>(), norm, 1e-5 * norm);
      const double factor = std::min(1.0, clip / (norm + 1e-6));
      for (std::size_t i = 0; i < before.size(); ++i) {
        EXPECT_TRUE(torch::allclose(model.store().params()[i].tensor.grad(), before[i] * factor, 1e-5, 1e-9)) << clip;
      }
    }
  }
  at::set_num_threads(threads);
}

// The single-pass CPU kernel against ATen's composition (the path other devices take), over several steps with
// decay and bias correction; 1003 entries cover the vector body and its scalar tail.
TEST(AdamW, CpuKernelMatchesAtenOps) {
  torch::manual_seed(5);
  const double lr = 3e-3, wd = 0.1, beta1 = 0.9, beta2 = 0.95, eps = 1e-8;
  at::Tensor p = torch::randn({1003}), m = torch::zeros({1003}), v = torch::zeros({1003});
  at::Tensor p_ref = p.clone(), m_ref = m.clone(), v_ref = v.clone();
  for (int t = 1; t <= 5; ++t) {
    const at::Tensor g = torch::randn({1003}) * (t == 3 ? 1e-6 : 1.0);  // a step with tiny gradients: eps matters
    const double bc1 = 1 - std::pow(beta1, t), bc2 = 1 - std::pow(beta2, t);
    adamw_update(p.data_ptr<float>(), g.data_ptr<float>(), m.data_ptr<float>(), v.data_ptr<float>(), p.numel(),
                 {static_cast<float>(1 - lr * wd), static_cast<float>(beta1), static_cast<float>(beta2),
                  static_cast<float>(bc2), static_cast<float>(-lr / bc1), static_cast<float>(eps)});
    p_ref.mul_(1 - lr * wd);
    m_ref.lerp_(g, 1 - beta1);
    v_ref.mul_(beta2).addcmul_(g, g, 1 - beta2);
    p_ref.addcdiv_(m_ref, (v_ref / bc2).sqrt_().add_(eps), -lr / bc1);
    // Rounding differs (fused multiply-adds, operation order): a few ulp of the operands, far below a wrong term.
    EXPECT_TRUE(torch::allclose(m, m_ref, 1e-5, 1e-6)) << "step " << t;
    EXPECT_TRUE(torch::allclose(v, v_ref, 1e-5, 1e-7)) << "step " << t;
    EXPECT_TRUE(torch::allclose(p, p_ref, 1e-5, 1e-7)) << "step " << t;
  }
}

TEST(AdamW, SumOfSquaresMatchesNorm) {
  torch::manual_seed(6);
  for (std::int64_t n : {1, 7, 33, 40000}) {  // under one vector, a tail, several chunks
    const at::Tensor x = torch::randn({n});
    EXPECT_NEAR(std::sqrt(sum_of_squares(x.data_ptr<float>(), n)), x.norm().item<double>(),
                1e-5 * x.norm().item<double>())
        << n;
  }
}

}  // namespace
}  // namespace gammalab::trainer
