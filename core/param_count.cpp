#include "core/param_count.h"

namespace gammalab {

namespace {

struct VectorTally {
  const ScaleSpec& scale;
  ParamCounts& counts;
  // One scale vector of `size` entries; OR and ER add a scalar β to each vector.
  void add(std::int64_t size, bool input_role, std::int64_t copies = 1) {
    std::int64_t n = copies * (size + (scale.param == ScaleParam::Plain ? 0 : 1));
    counts.scale_vectors += n;
    (input_role ? counts.input_norm : counts.output_norm) += n;
  }
};

}  // namespace

ParamCounts count_params(const ModelSpec& m, const ScaleSpec& scale) {
  ParamCounts c;
  const std::int64_t d = m.d_model, hd = m.head_dim(), V = m.vocab_size, L = m.n_layers;
  const std::int64_t q_out = std::int64_t(m.n_heads) * hd, kv_out = std::int64_t(m.kv_heads()) * hd;
  const bool moe = m.moe.n_experts > 0;
  const std::int64_t E = m.moe.n_experts, ffn = moe && m.moe.expert_ffn > 0 ? m.moe.expert_ffn : m.ffn();

  const std::int64_t attn = d * q_out + 2 * d * kv_out + q_out * d;
  const std::int64_t expert = 3 * d * ffn;
  const std::int64_t ffn_total = moe ? E * expert + d * E : expert;  // experts + router

  ParamCounts vectors;
  VectorTally tally{scale, vectors};
  if (scale.sharing != Sharing::None) {
    for (std::int64_t layer = 0; layer < L; ++layer) {
      const bool input_side = scale.placement != Placement::After;
      const bool output_side = scale.placement != Placement::Before;
      if (input_side) {
        if (scale.sharing == Sharing::Branch) {
          tally.add(d, true, 5);                              // γ_q, γ_k, γ_v, γ_gate, γ_up
          if (moe && m.moe.router_scale) tally.add(d, true);  // γ_router
        } else {
          tally.add(d, true, 2);  // γ_attn, γ_ffn
        }
      }
      if (output_side) {
        tally.add(q_out, false);
        tally.add(kv_out, false, 2);
        tally.add(ffn, false, moe ? 2 * E : 2);  // per expert in MoE
      }
      if (m.qk_norm) tally.add(hd, false, 2);
    }
    tally.add(d, scale.final_norm_is_input);  // γ_fin
  }

  c.embedding = V * d;
  c.scale_vectors = vectors.scale_vectors;
  c.input_norm = vectors.input_norm;
  c.output_norm = vectors.output_norm;
  c.total = c.embedding + L * (attn + ffn_total) + V * d + c.scale_vectors;
  // Activated: inactive experts' weights (and their output-side vectors) do not count.
  std::int64_t inactive = moe ? L * (E - m.moe.top_k) * expert : 0;
  if (moe && scale.sharing != Sharing::None && scale.placement != Placement::Before) {
    inactive += L * (E - m.moe.top_k) * 2 * (ffn + (scale.param == ScaleParam::Plain ? 0 : 1));
  }
  c.activated = c.total - inactive;
  return c;
}

double flops_per_token(const ModelSpec& m, const ScaleSpec& scale) {
  const ParamCounts c = count_params(m, scale);
  return 6.0 * double(c.activated - c.embedding) + 12.0 * m.n_layers * m.d_model * double(m.seq_len);
}

}  // namespace gammalab
