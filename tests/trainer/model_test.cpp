// Model structure and invariants 1, 2 and 4 (docs/variants.md, Invariants) for every variant.
#include <gtest/gtest.h>

#include <torch/torch.h>

#include "core/param_count.h"
#include "tests/trainer/trainer_test_util.h"
#include "worker/trainer/export.h"
#include "worker/trainer/model/model.h"
#include "worker/trainer/optim/param_groups.h"
#include "worker/trainer/ops/rms_norm.h"
#include "worker/trainer/torch_compat.h"

namespace gammalab::trainer {
namespace {

using testing::preset;

ModelSpec small_dense() {
  return {.vocab_size = 50, .n_layers = 2, .d_model = 24, .n_heads = 3, .ffn_hidden = 40, .seq_len = 16};
}

ModelSpec small_gqa_qknorm() {
  ModelSpec m = small_dense();
  m.d_model = 32;
  m.n_heads = 4;
  m.n_kv_heads = 2;
  m.qk_norm = true;
  return m;
}

ModelSpec small_moe(bool router_scale) {
  ModelSpec m = small_dense();
  m.moe.n_experts = 4;
  m.moe.top_k = 2;
  m.moe.expert_ffn = 20;
  m.moe.router_scale = router_scale;
  return m;
}

std::vector<ModelSpec> small_models() { return {small_dense(), small_gqa_qknorm(), small_moe(false), small_moe(true)}; }

at::Tensor random_tokens(const ModelSpec& m, std::int64_t batch, std::uint64_t seed) {
  torch::manual_seed(seed);
  return torch::randint(m.vocab_size, {batch, m.seq_len}, torch::kLong);
}

// Every raw scale parameter moved away from its init, so that folding has something to fold.
void randomize_scales(Model& model, std::uint64_t seed) {
  torch::NoGradGuard no_grad;
  torch::manual_seed(seed);
  for (auto& p : model.store().params()) {
    if (p.is_scale()) p.tensor.add_(0.3 * torch::randn(p.tensor.sizes()));
  }
}

TEST(ParamCount, Llama1BMatchesThePaper) {
  const ModelSpec m = preset("llama-1b");
  const ParamCounts c = count_params(m, variant_preset("baseline"));
  EXPECT_EQ(c.total, 1'028'065'024);
  EXPECT_EQ(c.scale_vectors, 80'640);
  EXPECT_EQ(c.input_norm, 80'640 - 1792);  // all but γ_fin, an Output-Norm by default
  EXPECT_EQ(c.output_norm, 1792);
  EXPECT_NEAR(c.scale_fraction(), 7.84e-5, 0.01e-5);
}

TEST(ParamCount, ModelNumelEqualsCountParamsForEveryVariant) {
  for (const ModelSpec& m : small_models()) {
    for (const std::string& v : variant_names()) {
      SCOPED_TRACE("variant " + v + " experts " + std::to_string(m.moe.n_experts) + " qk_norm " + std::to_string(m.qk_norm));
      const ScaleSpec s = variant_preset(v);
      Model model(m, s);
      const ParamCounts c = count_params(m, s);
      std::int64_t scale = 0, input = 0, output = 0, embedding = 0;
      for (const auto& p : model.store().params()) {
        if (p.is_scale()) {
          scale += p.tensor.numel();
          (p.role == ScaleRole::Input ? input : output) += p.tensor.numel();
        }
        if (p.kind == ParamKind::Embedding) embedding += p.tensor.numel();
      }
      EXPECT_EQ(model.store().numel(), c.total);
      EXPECT_EQ(scale, c.scale_vectors);
      EXPECT_EQ(input, c.input_norm);
      EXPECT_EQ(output, c.output_norm);
      EXPECT_EQ(embedding, c.embedding);
    }
  }
}

TEST(ParamCount, TinyPresetCountsMatchTheModel) {
  for (const char* name : {"tiny-0.1m", "tiny-2m"}) {
    const ModelSpec m = preset(name);
    for (const std::string v : {"baseline", "unified"}) {
      Model model(m, variant_preset(v));
      EXPECT_EQ(model.store().numel(), count_params(m, variant_preset(v)).total) << name << " " << v;
    }
  }
}

// γ_fin ("norm") is an Output-Norm by default and an Input-Norm with scale.final_norm_is_input.
TEST(Roles, EveryScaleVectorIsTaggedAsInTheSpec) {
  Model unified(small_dense(), variant_preset("unified"));
  for (const auto& sv : unified.store().scales()) {
    const bool input = sv.name.ends_with("_in");
    EXPECT_EQ(sv.role, input ? ScaleRole::Input : ScaleRole::Output) << sv.name;
    EXPECT_EQ(sv.param, ScaleParam::MagDirOrig) << sv.name;
  }
  Model base(small_gqa_qknorm(), variant_preset("baseline"));
  for (const auto& sv : base.store().scales()) {
    const bool output = sv.name.ends_with("q_norm") || sv.name.ends_with("k_norm") || sv.name == "norm";
    EXPECT_EQ(sv.role, output ? ScaleRole::Output : ScaleRole::Input) << sv.name;
  }
  ScaleSpec older = variant_preset("baseline");
  older.final_norm_is_input = true;
  Model input_fin(small_dense(), older);
  for (const auto& sv : input_fin.store().scales()) EXPECT_EQ(sv.role, ScaleRole::Input) << sv.name;
}

// Invariant 2: at init HG, AP, DP, OR, ER (and none, IWD, which only changes decay, and unified_dp) give exactly
// the baseline's logits; DNP's Norm does not, with or without vectors.
TEST(Invariants, AtInitVariantsEqualBaselineExceptDnp) {
  for (const ModelSpec& m : small_models()) {
    const at::Tensor tokens = random_tokens(m, 3, 7);
    Model base(m, variant_preset("baseline"));
    base.init(11);
    torch::NoGradGuard no_grad;
    const at::Tensor ref = base.logits(tokens);
    for (const std::string v : {"none", "hg", "ap", "dp", "or", "er", "iwd", "unified_dp"}) {
      Model model(m, variant_preset(v));
      model.init(11);
      EXPECT_TRUE(torch::equal(model.logits(tokens), ref)) << v << " experts " << m.moe.n_experts;
    }
    for (const std::string v : {"dnp", "unified", "dnp_novec"}) {
      Model model(m, variant_preset(v));
      model.init(11);
      const double diff = (model.logits(tokens) - ref).abs().max().item<double>();
      EXPECT_GT(diff, 1e-3) << v;
    }
  }
}

// The 2026 arms at init (docs/variants.md, "The 2026 arms"), their shared parameters copied from a baseline:
// SeeDNorm (α = 0) and PreAffine (λ = 1) are the baseline; LayerNorm Scaling is the baseline in a one-layer
// model (1/√1) and not in two layers; Peri-LN, GatedNorm, DyT and Derf are other functions.
TEST(Invariants, TheArmsAtInitAgainstTheBaseline) {
  for (const ModelSpec& deep : small_models()) {
    ModelSpec shallow = deep;
    shallow.n_layers = 1;
    for (const ModelSpec& m : {deep, shallow}) {
      const at::Tensor tokens = random_tokens(m, 3, 7);
      Model base(m, variant_preset("baseline"));
      base.init(11);
      torch::NoGradGuard no_grad;
      const at::Tensor ref = base.logits(tokens);
      for (const std::string v : {"seednorm", "peri_ln", "gated", "pre_affine", "ln_scaling", "dyt", "derf"}) {
        SCOPED_TRACE(v + " layers " + std::to_string(m.n_layers) + " experts " + std::to_string(m.moe.n_experts));
        Model arm(m, variant_preset(v));
        arm.init(11);
        for (const Param& p : base.store().params()) {
          const int i = arm.store().find(p.name);
          ASSERT_GE(i, 0) << "the arm lacks the baseline's " << p.name;
          arm.store().params()[static_cast<std::size_t>(i)].tensor.copy_(p.tensor);
        }
        const double diff = (arm.logits(tokens) - ref).abs().max().item<double>();
        const bool same = v == "seednorm" || v == "pre_affine" || (v == "ln_scaling" && m.n_layers == 1);
        if (same) {
          EXPECT_LT(diff, 1e-5 * (1.0 + ref.abs().max().item<double>()));
        } else {
          EXPECT_GT(diff, 1e-3);
        }
      }
    }
  }
}

// Each arm's own parameters, where the optimizer reads them: DyT's, Derf's and SeeDNorm's are never decayed and
// go to AdamW; GatedNorm's matrices are matrices (decayed, Muon's under muon); λ and Peri-LN's γ_out are
// Output-Norm scale vectors, so IWD leaves them alone and `decay: all` (peri_ln_owd) decays them.
TEST(Roles, TheArmsParametersAreGroupedAsDocumented) {
  JobConfig c;
  c.optim.name = OptimizerKind::Muon;
  for (const std::string v : {"seednorm", "dyt", "derf", "gated", "pre_affine", "peri_ln", "peri_ln_owd"}) {
    c.scale = variant_preset(v);
    Model model(small_dense(), c.scale);
    const std::vector<ParamGroup> groups = build_param_groups(model.store(), c);
    int own = 0;
    for (const ParamGroup& g : groups) {
      const Param& p = model.store().params()[static_cast<std::size_t>(g.index)];
      SCOPED_TRACE(v + " " + p.name);
      if (p.name.find("prenorm.") == std::string::npos && p.name.find("out_norm") == std::string::npos) continue;
      ++own;
      if (p.kind == ParamKind::NormParam) {
        EXPECT_EQ(g.weight_decay, 0.0);
        EXPECT_FALSE(g.muon);
      } else if (p.kind == ParamKind::Matrix) {
        EXPECT_TRUE(v == "gated");
        EXPECT_EQ(g.weight_decay, c.optim.weight_decay);
        EXPECT_TRUE(g.muon);
      } else {
        EXPECT_EQ(p.kind, ParamKind::ScaleAlpha);
        EXPECT_EQ(p.role, ScaleRole::Output);
        EXPECT_EQ(g.weight_decay, v == "peri_ln_owd" ? c.optim.weight_decay : 0.0);
      }
    }
    EXPECT_GT(own, 0) << v;
  }
}

// Invariant 1: W(γ ⊙ x) == (W diag(γ)) x, and a model with random γ gives the same logits after its γ are
// folded into the following maps (where foldable) and set to ones.
TEST(Invariants, AbsorptionIdentity) {
  torch::manual_seed(3);
  const at::Tensor W = torch::randn({7, 5}), g = torch::randn({5}), x = torch::randn({4, 5});
  EXPECT_TRUE(torch::allclose(torch::matmul(x * g, W.t()), torch::matmul(x, (W * g.unsqueeze(0)).t()), 1e-5, 1e-6));
}

TEST(Invariants, FoldingScaleVectorsKeepsLogits) {
  for (const ModelSpec& m : small_models()) {
    const at::Tensor tokens = random_tokens(m, 3, 9);
    for (const std::string& v : variant_names()) {
      SCOPED_TRACE(v + " experts " + std::to_string(m.moe.n_experts));
      Model model(m, variant_preset(v));
      model.init(5);
      randomize_scales(model, 17);
      torch::NoGradGuard no_grad;
      const at::Tensor before = model.logits(tokens);
      fold_scales(model);
      const at::Tensor after = model.logits(tokens);
      EXPECT_LT((after - before).abs().max().item<double>(), 1e-4 * (1.0 + before.abs().max().item<double>()));
      // Every foldable vector is now γ = 1. A 2026 arm's Pre-Norm keeps its γ unless it is γ ⊙ f(h) (pre_norm.h),
      // and λ inside pre_affine's Norm and Peri-LN's γ_out after a Norm never fold.
      const bool dual_norm = model.scale_spec().placement == Placement::DualNorm;
      const bool arm_folds = folds_gamma(model.scale_spec().norm_kind());
      for (std::size_t i = 0; i < model.store().scales().size(); ++i) {
        const auto& sv = model.store().scales()[i];
        const bool after_a_norm = sv.name.ends_with("q_norm") || sv.name.ends_with("k_norm") ||
                                  sv.name.ends_with(".affine") || sv.name.ends_with("out_norm");
        const bool foldable = arm_folds && (sv.role == ScaleRole::Input || (!dual_norm && !after_a_norm));
        if (foldable) {
          EXPECT_TRUE(torch::allclose(model.store().gamma(static_cast<int>(i)), torch::ones({sv.size}))) << sv.name;
        }
      }
    }
  }
}

// Invariant 4: every variant adds O(d) parameters per layer; report the overhead as a fraction.
TEST(Invariants, OverheadIsLinearInWidth) {
  for (const std::string& v : variant_names()) {
    ModelSpec m = preset("llama-1b");
    const ScaleSpec s = variant_preset(v);
    const ParamCounts base = count_params(m, s);
    ModelSpec wide = m;
    wide.d_model *= 2;
    wide.ffn_hidden *= 2;
    const ParamCounts w = count_params(wide, s);
    if (v == "none") {
      EXPECT_EQ(base.scale_vectors, 0);
      continue;
    }
    const double per_layer = double(base.scale_vectors) / m.n_layers;
    // Doubling d (and the FFN) at most doubles the vectors, while the matrices grow four-fold.
    EXPECT_LE(double(w.scale_vectors), 2.0 * double(base.scale_vectors) + 64.0) << v;
    EXPECT_LE(per_layer, 12.0 * (m.d_model + m.ffn())) << v;
    EXPECT_LT(base.scale_fraction(), 1e-3) << v;
    std::printf("[overhead] %-8s llama-1b: %8lld scale params (%.3e of the model, %.0f per layer)\n", v.c_str(),
                static_cast<long long>(base.scale_vectors), base.scale_fraction(), per_layer);
  }
}

}  // namespace
}  // namespace gammalab::trainer

namespace gammalab::trainer {
namespace {

// The fused CPU kernel against the plain composition, forward and gradients, for whole-vector and per-head
// groups, with and without weight, on a column slice (the layout split() leaves after a fused projection).
TEST(RmsNorm, FusedKernelMatchesPlainOps) {
  for (std::int64_t group : {24, 8}) {
    for (bool with_weight : {false, true}) {
      torch::manual_seed(group + with_weight);
      const at::Tensor base = torch::randn({3, 5, 40});
      at::Tensor xa = base.clone().requires_grad_(true), xb = base.clone().requires_grad_(true);
      at::Tensor wa = (torch::rand({24}) + 0.5).requires_grad_(true), wb = wa.detach().clone().requires_grad_(true);
      const at::Tensor upstream = torch::randn({3, 5, 24});
      at::Tensor ya = rms_norm(xa.narrow(-1, 8, 24), group, 1e-5, with_weight ? wa : at::Tensor(), true);
      at::Tensor yb = rms_norm(xb.narrow(-1, 8, 24), group, 1e-5, with_weight ? wb : at::Tensor(), false);
      EXPECT_TRUE(torch::allclose(ya, yb, 1e-5, 1e-6));
      (ya * upstream).sum().backward();
      (yb * upstream).sum().backward();
      EXPECT_TRUE(torch::allclose(xa.grad(), xb.grad(), 1e-4, 1e-6));
      if (with_weight) {
        EXPECT_TRUE(torch::allclose(wa.grad(), wb.grad(), 1e-4, 1e-6));
      }
    }
  }
}

}  // namespace
}  // namespace gammalab::trainer

namespace gammalab::trainer {
namespace {

// The fused CPU kernels (SwiGLU with DNP's Norms; split, Norms, RoPE and head layout of q, k, v) against the
// plain ATen composition the Hessian-vector products use: the same loss and the same gradient for every
// parameter, for every variant on dense, grouped-query + QK-norm and MoE models, and DNP per head.
TEST(FusedKernels, MatchPlainOpsForEveryVariant) {
  for (const ModelSpec& m : small_models()) {
    std::vector<ScaleSpec> scales;
    for (const std::string& v : variant_names()) scales.push_back(variant_preset(v));
    ScaleSpec per_head = variant_preset("unified");
    per_head.dnp_per_head = true;
    scales.push_back(per_head);
    for (const ScaleSpec& s : scales) {
      SCOPED_TRACE("variant " + s.variant + " per_head " + std::to_string(s.dnp_per_head) + " experts " +
                   std::to_string(m.moe.n_experts) + " qk_norm " + std::to_string(m.qk_norm));
      Model model(m, s);
      model.init(5);
      randomize_scales(model, 6);
      const at::Tensor tokens = random_tokens(m, 3, 7), targets = random_tokens(m, 3, 8);
      std::vector<at::Tensor> grads[2];
      double losses[2] = {0, 0};
      for (int plain = 0; plain < 2; ++plain) {
        for (auto& p : model.store().params()) p.tensor.mutable_grad() = at::Tensor();
        at::Tensor loss = model.loss(tokens, targets, /*twice_differentiable=*/plain == 1).total();
        loss.backward();
        losses[plain] = loss.item<double>();
        for (const auto& p : model.store().params()) {
          grads[plain].push_back(p.tensor.grad().defined() ? p.tensor.grad().clone() : at::zeros_like(p.tensor));
        }
      }
      EXPECT_NEAR(losses[0], losses[1], 1e-5 * std::abs(losses[1]));
      for (std::size_t i = 0; i < grads[0].size(); ++i) {
        SCOPED_TRACE(model.store().params()[i].name);
        EXPECT_TRUE(torch::allclose(grads[0][i], grads[1][i], 1e-3, 1e-6))
            << "max abs diff " << (grads[0][i] - grads[1][i]).abs().max().item<float>();
      }
    }
  }
}

}  // namespace
}  // namespace gammalab::trainer

namespace gammalab::trainer {
namespace {

// Under bf16 autocast (here the CPU's, standing in for CUDA's) the MoE router still computes its logits,
// softmax and z-loss in float32, and agrees with the float32 router on the same (bf16-rounded) input.
TEST(MoeRouter, Float32UnderBf16Autocast) {
  for (bool router_scale : {false, true}) {
    SCOPED_TRACE("router_scale " + std::to_string(router_scale));
    const ModelSpec m = small_moe(router_scale);
    Model model(m, variant_preset(router_scale ? "unified" : "baseline"));
    model.init(3);
    const Layer& layer = model.layers().front();
    ASSERT_TRUE(layer.moe.has_value());
    torch::manual_seed(5);
    const at::Tensor x = torch::randn({12, m.d_model}).to(at::kBFloat16);
    const RouterOutput plain = route(model.store(), *layer.moe, x);
    set_cpu_autocast(true);
    const RouterOutput mixed = route(model.store(), *layer.moe, x);
    // An op autocast does cast, in the same scope, to show the autocast is really on.
    const at::Tensor cast = at::linear(x.to(at::kFloat), model.store()[layer.moe->router]);
    at::Tensor aux = at::zeros({});
    const at::Tensor y =
        moe_forward(model.store(), *layer.moe, x.to(at::kFloat).unsqueeze(0), ProjectOptions{.fused = false}, aux);
    set_cpu_autocast(false);
    EXPECT_EQ(cast.scalar_type(), at::kBFloat16);
    EXPECT_EQ(mixed.logits.scalar_type(), at::kFloat);
    EXPECT_EQ(mixed.probs.scalar_type(), at::kFloat);
    EXPECT_EQ(aux.scalar_type(), at::kFloat);
    EXPECT_TRUE(torch::isfinite(aux).item<bool>());
    EXPECT_TRUE(torch::allclose(mixed.logits, plain.logits, 1e-5, 1e-6));
    EXPECT_TRUE(torch::allclose(mixed.probs.sum(-1), torch::ones({12}), 1e-5, 1e-6));
    EXPECT_EQ(y.sizes().vec(), (std::vector<std::int64_t>{1, 12, m.d_model}));
  }
}

}  // namespace
}  // namespace gammalab::trainer
