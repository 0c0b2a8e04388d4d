// Analytic parameter and FLOP counts (see param_count.h). The counts are O(1) in the model's size (one layer
// counted, then multiplied) and every sum and product is checked: a config too large for 64-bit counts is a
// ConfigError, never a wrapped negative number. validate() bounds the sizes; this guards the callers that
// count before validating (a sweep's `params` in expressions).
#include "core/param_count.h"

#include "core/config_error.h"

namespace gammalab {

namespace {

// An int64 count whose + and * throw ConfigError on overflow.
struct Count {
  std::int64_t v = 0;
};

[[noreturn]] void overflow() {
  throw ConfigError("model", "the parameter count overflows a 64-bit integer (the model is far too large)");
}
Count operator+(Count a, Count b) {
  Count r;
  if (__builtin_add_overflow(a.v, b.v, &r.v)) overflow();
  return r;
}
Count operator-(Count a, Count b) {
  Count r;
  if (__builtin_sub_overflow(a.v, b.v, &r.v)) overflow();
  return r;
}
Count operator*(Count a, Count b) {
  Count r;
  if (__builtin_mul_overflow(a.v, b.v, &r.v)) overflow();
  return r;
}

// The scale vectors of one layer (or of the final norm), by role. OR and ER add a scalar β to each vector.
struct VectorTally {
  Count bias;  // 1 for OR and ER, else 0
  Count input, output;
  void add(Count size, bool input_role, Count copies = {1}) {
    (input_role ? input : output) = (input_role ? input : output) + copies * (size + bias);
  }
};

}  // namespace

std::int64_t sweep_params(const ModelSpec& model) {
  ModelSpec baseline = model;
  baseline.qk_norm = false;
  return count_params(baseline, ScaleSpec{}).activated;
}

ParamCounts count_params(const ModelSpec& m, const ScaleSpec& scale) {
  if (m.n_heads < 1) throw ConfigError("model.n_heads", "must be at least 1");
  const bool moe = m.moe.n_experts > 0;
  const Count d{m.d_model}, hd{m.head_dim()}, V{m.vocab_size}, L{m.n_layers};
  const Count q_out = Count{m.n_heads} * hd, kv_out = Count{m.kv_heads()} * hd;
  const Count E{m.moe.n_experts}, top_k{m.moe.top_k};
  const Count dense_ffn{m.ffn_hidden > 0 ? m.ffn_hidden : 8 * std::int64_t(m.d_model) / 3};
  const Count ffn = moe && m.moe.expert_ffn > 0 ? Count{m.moe.expert_ffn} : dense_ffn;
  const Count two{2};

  const Count attn = d * q_out + two * d * kv_out + q_out * d;
  const Count expert = Count{3} * d * ffn;
  const Count ffn_total = moe ? E * expert + d * E : expert;  // experts + router

  const Count bias{scale.param == ScaleParam::Plain ? 0 : 1};
  VectorTally layer{bias, {}, {}};
  VectorTally final_norm{bias, {}, {}};
  if (scale.sharing != Sharing::None) {
    const bool input_side = scale.placement != Placement::After;
    const bool output_side = scale.placement != Placement::Before;
    if (input_side) {
      if (scale.sharing == Sharing::Branch) {
        layer.add(d, true, {5});                              // γ_q, γ_k, γ_v, γ_gate, γ_up
        if (moe && m.moe.router_scale) layer.add(d, true);    // γ_router
      } else {
        layer.add(d, true, two);  // γ_attn, γ_ffn
      }
    }
    if (output_side) {
      layer.add(q_out, false);
      layer.add(kv_out, false, two);
      layer.add(ffn, false, moe ? two * E : two);  // per expert in MoE
    }
    if (m.qk_norm) layer.add(hd, false, two);
    final_norm.add(d, scale.final_norm_is_input);  // γ_fin
  }
  // The 2026 arms (validate() keeps them to the baseline's axes): their vectors, and their other parameters at
  // each of the 2L + 1 Pre-Norms.
  const NormKind kind = scale.norm_kind();
  if (kind == NormKind::PeriLn) layer.add(d, false, two);  // γ_out after attention and after the FFN
  if (kind == NormKind::PreAffine) {                       // λ inside each Pre-Norm
    layer.add(d, false, two);
    final_norm.add(d, false);
  }
  Count per_site{};
  switch (kind) {
    case NormKind::Dyt: per_site = Count{1} + d; break;           // α, bias
    case NormKind::Derf: per_site = Count{2} + d; break;          // α, s, bias
    case NormKind::SeedNorm: per_site = two * d; break;           // α, β
    case NormKind::Gated: per_site = two * Count{scale.rank()} * d; break;  // W_down, W_up
    case NormKind::Rms:
    case NormKind::PeriLn:
    case NormKind::PreAffine:
    case NormKind::LnScaling: break;  // vectors only (above), or nothing
  }
  const Count norm_params = (two * L + Count{1}) * per_site;

  ParamCounts c;
  const Count input = L * layer.input + final_norm.input, output = L * layer.output + final_norm.output;
  const Count vectors = input + output;
  const Count embedding = V * d;
  const Count total = embedding + L * (attn + ffn_total) + V * d + vectors + norm_params;
  // Activated: inactive experts' weights (and their output-side vectors) do not count.
  Count inactive = moe ? L * (E - top_k) * expert : Count{};
  if (moe && scale.sharing != Sharing::None && scale.placement != Placement::Before) {
    inactive = inactive + L * (E - top_k) * two * (ffn + bias);
  }
  c.embedding = embedding.v;
  c.scale_vectors = vectors.v;
  c.input_norm = input.v;
  c.output_norm = output.v;
  c.norm_params = norm_params.v;
  c.total = total.v;
  c.activated = (total - inactive).v;
  return c;
}

double flops_per_token(const ModelSpec& m, const ScaleSpec& scale) {
  const ParamCounts c = count_params(m, scale);
  return 6.0 * double(c.activated - c.embedding) + 12.0 * m.n_layers * m.d_model * double(m.seq_len);
}

double job_fitted_params(const JobConfig& config) {
  if (config.declared_params) return *config.declared_params;
  return double(count_params(config.model, config.scale).fitted());
}

double job_fitted_tokens(const JobConfig& config) {
  if (config.declared_tokens) return *config.declared_tokens;
  return double(config.steps) * double(config.batch_tokens);
}

double job_flops_per_token(const JobConfig& config) {
  if (config.declared_params) return 6.0 * *config.declared_params;
  return flops_per_token(config.model, config.scale);
}

}  // namespace gammalab
