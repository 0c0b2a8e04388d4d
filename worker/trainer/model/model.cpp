#include "worker/trainer/model/model.h"

#include <cmath>
#include <limits>

#include "worker/trainer/ops/rms_norm.h"
#include "worker/trainer/torch_compat.h"

namespace gammalab::trainer {

Model::Model(const ModelSpec& m, const ScaleSpec& s) : spec_(m), scale_(s) {
  const std::int64_t d = m.d_model, hd = m.head_dim(), V = m.vocab_size;
  const std::int64_t q_out = std::int64_t(m.n_heads) * hd, kv_out = std::int64_t(m.kv_heads()) * hd;
  const bool moe = m.moe.n_experts > 0;
  const std::int64_t ffn = moe && m.moe.expert_ffn > 0 ? m.moe.expert_ffn : m.ffn();
  const bool none = s.sharing == Sharing::None, branch = s.sharing == Sharing::Branch;
  const bool in_side = !none && s.placement != Placement::After;
  const bool out_side = !none && s.placement != Placement::Before;
  dual_norm_ = s.placement == Placement::DualNorm;
  const ScaleParam sp = s.param;
  shape_ = {m.n_heads, m.kv_heads(), hd};

  auto matrix = [&](const std::string& name, std::int64_t out, std::int64_t in, ParamInit init,
                    ParamKind kind = ParamKind::Matrix) { return store_.add(name, at::empty({out, in}), kind, init); };
  const ParamInit hidden = ParamInit::trunc_normal(0.02, 2.0);  // q, k, v, gate, up, router
  auto out_vec = [&](const std::string& name, std::int64_t size) {
    return out_side ? store_.add_scale(name, size, ScaleRole::Output, sp) : -1;
  };

  embedding_ = matrix("tok_embeddings", V, d, ParamInit::normal(1.0), ParamKind::Embedding);
  for (int l = 0; l < m.n_layers; ++l) {
    const std::string pre = "layers." + std::to_string(l) + ".";
    const ParamInit output_proj = ParamInit::trunc_normal(depth_scaled_std(0.02, l), 2.0);  // o, down
    Layer layer;
    Attention& a = layer.attn;
    if (in_side && !branch) {
      layer.attn_norm = store_.add_scale(pre + "attn_norm", d, ScaleRole::Input, sp);
      a.q.in_scale = a.k.in_scale = a.v.in_scale = layer.attn_norm;
    } else if (in_side) {
      a.q.in_scale = store_.add_scale(pre + "attn.q_in", d, ScaleRole::Input, sp);
      a.k.in_scale = store_.add_scale(pre + "attn.k_in", d, ScaleRole::Input, sp);
      a.v.in_scale = store_.add_scale(pre + "attn.v_in", d, ScaleRole::Input, sp);
    }
    a.q.weight = matrix(pre + "attn.wq", q_out, d, hidden);
    a.k.weight = matrix(pre + "attn.wk", kv_out, d, hidden);
    a.v.weight = matrix(pre + "attn.wv", kv_out, d, hidden);
    a.q.out_scale = out_vec(pre + "attn.q_out", q_out);
    a.k.out_scale = out_vec(pre + "attn.k_out", kv_out);
    a.v.out_scale = out_vec(pre + "attn.v_out", kv_out);
    if (s.dnp_per_head) a.q.norm_group = a.k.norm_group = hd;
    a.qk_norm = m.qk_norm;
    if (m.qk_norm && !none) {
      a.q_norm = store_.add_scale(pre + "attn.q_norm", hd, ScaleRole::Output, sp);
      a.k_norm = store_.add_scale(pre + "attn.k_norm", hd, ScaleRole::Output, sp);
    }
    a.wo = matrix(pre + "attn.wo", d, q_out, output_proj);

    int gate_in = -1, up_in = -1, router_in = -1;
    if (in_side && !branch) {
      layer.ffn_norm = store_.add_scale(pre + "ffn_norm", d, ScaleRole::Input, sp);
      gate_in = up_in = router_in = layer.ffn_norm;
    } else if (in_side) {
      gate_in = store_.add_scale(pre + "ffn.gate_in", d, ScaleRole::Input, sp);
      up_in = store_.add_scale(pre + "ffn.up_in", d, ScaleRole::Input, sp);
      if (moe && m.moe.router_scale) router_in = store_.add_scale(pre + "ffn.router_in", d, ScaleRole::Input, sp);
    }
    auto make_ffn = [&](const std::string& p) {
      Ffn f;
      f.gate.in_scale = gate_in;
      f.up.in_scale = up_in;
      f.gate.weight = matrix(p + "gate", ffn, d, hidden);
      f.up.weight = matrix(p + "up", ffn, d, hidden);
      f.gate.out_scale = out_vec(p + "gate_out", ffn);
      f.up.out_scale = out_vec(p + "up_out", ffn);
      f.down = matrix(p + "down", d, ffn, output_proj);
      return f;
    };
    if (moe) {
      Moe mo;
      mo.router = matrix(pre + "ffn.router", m.moe.n_experts, d, hidden, ParamKind::Router);
      mo.router_in = router_in;
      mo.top_k = m.moe.top_k;
      mo.aux_loss_weight = m.moe.aux_loss_weight;
      mo.z_loss_weight = m.moe.z_loss_weight;
      for (int e = 0; e < m.moe.n_experts; ++e) mo.experts.push_back(make_ffn(pre + "ffn.experts." + std::to_string(e) + "."));
      layer.moe = std::move(mo);
    } else {
      layer.ffn = make_ffn(pre + "ffn.");
    }
    layers_.push_back(std::move(layer));
  }
  if (!none) final_norm_ = store_.add_scale("norm", d, s.final_norm_is_input ? ScaleRole::Input : ScaleRole::Output, sp);
  lm_head_ = matrix("lm_head", V, d, ParamInit::trunc_normal(1.0 / std::sqrt(double(d)), 3.0), ParamKind::LmHead);

  rope_ = make_rope_tables(m.seq_len, hd, m.rope_theta, device_);
  mask_ = at::full({m.seq_len, m.seq_len}, -std::numeric_limits<float>::infinity()).triu(1);
  init(0);
}

void Model::init(std::uint64_t seed) {
  at::NoGradGuard no_grad;
  at::Generator gen = make_cpu_generator(seed);
  for (auto& p : store_.params()) {
    at::Tensor t = at::empty(p.tensor.sizes(), at::kFloat);
    p.init.apply(t, gen);
    p.tensor = t.to(device_).set_requires_grad(true);
  }
}

void Model::to(const at::Device& device) {
  at::NoGradGuard no_grad;
  device_ = device;
  for (auto& p : store_.params()) p.tensor = p.tensor.detach().to(device).set_requires_grad(true);
  rope_ = make_rope_tables(spec_.seq_len, spec_.head_dim(), spec_.rope_theta, device);
  mask_ = mask_.to(device);
}

std::vector<at::Tensor> Model::parameters() const {
  std::vector<at::Tensor> out;
  for (const auto& p : store_.params()) out.push_back(p.tensor);
  return out;
}

at::Tensor Model::forward_hidden(const at::Tensor& tokens, bool twice, at::Tensor& aux) const {
  const double eps = spec_.norm_eps;
  const bool fused = !twice;
  BlockContext ctx;
  ctx.rope = &rope_;
  ctx.mask = &mask_;
  ctx.project = {dual_norm_, eps, fused};
  ctx.twice_differentiable = twice;
  const std::int64_t d = spec_.d_model;

  at::Tensor h = at::embedding(store_[embedding_], tokens);
  for (const Layer& layer : layers_) {
    h = h + attention_forward(store_, layer.attn, shape_, rms_norm(h, d, eps, {}, fused), ctx);
    at::Tensor x = rms_norm(h, d, eps, {}, fused);
    h = h + (layer.moe ? moe_forward(store_, *layer.moe, x, ctx.project, aux) : ffn_forward(store_, layer.ffn, x, ctx.project));
  }
  return rms_norm(h, d, eps, {}, fused);
}

at::Tensor Model::logits(const at::Tensor& tokens, bool twice) const {
  at::Tensor aux = at::zeros({}, at::TensorOptions().device(device_));
  at::Tensor x = forward_hidden(tokens, twice, aux);
  at::Tensor w = store_[lm_head_];
  if (final_norm_ >= 0) w = w * store_.gamma(final_norm_).unsqueeze(0);
  return at::linear(x, w);
}

LossParts Model::loss(const at::Tensor& tokens, const at::Tensor& targets, bool twice) const {
  at::Tensor aux = at::zeros({}, at::TensorOptions().device(device_));
  at::Tensor x = forward_hidden(tokens, twice, aux);
  at::Tensor w = store_[lm_head_];
  if (final_norm_ >= 0) w = w * store_.gamma(final_norm_).unsqueeze(0);
  at::Tensor logits = at::linear(x, w);
  at::Tensor ce = at::cross_entropy_loss(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}));
  return {ce, aux};
}

}  // namespace gammalab::trainer
