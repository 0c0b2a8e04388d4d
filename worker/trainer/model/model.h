#pragma once
// Pre-Norm Llama (dense or MoE) with every scale-vector variant (docs/variants.md) as composable config axes.
#include <optional>
#include <vector>

#include <torch/torch.h>

#include "core/job_config.h"
#include "worker/trainer/model/attention.h"
#include "worker/trainer/model/moe.h"
#include "worker/trainer/model/param_store.h"
#include "worker/trainer/model/pre_norm.h"

namespace gammalab::trainer {

struct Layer {
  int attn_norm = -1;  // shared γ_attn (Input-Norm) when sharing == shared
  int ffn_norm = -1;   // shared γ_ffn
  PreNorm attn_pre, ffn_pre;                 // what the two Pre-Norms compute (scale.norm)
  int attn_out_norm = -1, ffn_out_norm = -1;  // peri_ln: γ_out of the Norm on each block's output
  Attention attn;
  Ffn ffn;
  std::optional<Moe> moe;
};

struct LossParts {
  at::Tensor ce;     // mean next-token cross-entropy
  at::Tensor aux;    // weighted MoE auxiliary losses (0 for dense models)
  at::Tensor total() const { return ce + aux; }
};

class Model {
 public:
  Model(const ModelSpec& model, const ScaleSpec& scale);

  // Draws every parameter from its ParamInit, in creation order, from one generator seeded with `seed` (the
  // scheme is in param_init.h; γ = 1: OR α = β = 1, ER α = β = 0).
  void init(std::uint64_t seed);
  void to(const at::Device& device);
  const at::Device& device() const { return device_; }

  // tokens: [B, T] int64. twice_differentiable: only ops with double backward (for Hessian-vector products).
  at::Tensor logits(const at::Tensor& tokens, bool twice_differentiable = false) const;
  LossParts loss(const at::Tensor& tokens, const at::Tensor& targets, bool twice_differentiable = false) const;

  ParamStore& store() { return store_; }
  const ParamStore& store() const { return store_; }
  std::vector<at::Tensor> parameters() const;
  const ModelSpec& model_spec() const { return spec_; }
  const ScaleSpec& scale_spec() const { return scale_; }
  const std::vector<Layer>& layers() const { return layers_; }
  int embedding() const { return embedding_; }
  int lm_head() const { return lm_head_; }
  int final_norm() const { return final_norm_; }
  const PreNorm& final_pre() const { return final_pre_; }

 private:
  at::Tensor forward_hidden(const at::Tensor& tokens, bool twice_differentiable, at::Tensor& aux) const;
  // W_lm with γ_fin folded in, where the final norm leaves its γ to the next map (pre_norm.h).
  at::Tensor lm_weight() const;

  ModelSpec spec_;
  ScaleSpec scale_;
  ParamStore store_;
  std::vector<Layer> layers_;
  int embedding_ = -1, lm_head_ = -1, final_norm_ = -1;
  PreNorm final_pre_;
  bool dual_norm_ = false;
  AttentionShape shape_;
  RopeTables rope_;
  at::Tensor mask_;
  at::Device device_ = at::kCPU;
};

}  // namespace gammalab::trainer
