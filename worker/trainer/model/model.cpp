#include "worker/trainer/model/model.h"

#include <cmath>
#include <limits>

#include "worker/trainer/ops/rms_norm.h"
#include "worker/trainer/torch_compat.h"

namespace gammalab::trainer {

namespace {

// Adds a model's parameters to its store, block by block, in the order Model::init draws them (so the order here
// is part of every run's initialisation: keep it). What the two specs imply is worked out once, here.
class ParamBuilder {
 public:
  ParamBuilder(ParamStore& store, const ModelSpec& m, const ScaleSpec& s)
      : store_(store),
        m_(m),
        d_(m.d_model),
        hd_(m.head_dim()),
        q_out_(std::int64_t(m.n_heads) * hd_),
        kv_out_(std::int64_t(m.kv_heads()) * hd_),
        moe_(m.moe.n_experts > 0),
        ffn_(m.ffn_width()),
        none_(s.sharing == Sharing::None),
        branch_(s.sharing == Sharing::Branch),
        in_side_(!none_ && s.placement != Placement::After),
        out_side_(!none_ && s.placement != Placement::Before),
        dnp_per_head_(s.dnp_per_head),
        param_(s.param),
        scale_(s),
        fold_(folds_gamma(s.norm_kind())) {}

  int embedding() { return matrix("tok_embeddings", m_.vocab_size, d_, ParamInit::normal(1.0), ParamKind::Embedding); }

  Layer layer(int l) {
    const std::string pre = "layers." + std::to_string(l) + ".";
    const ParamInit output_proj = ParamInit::trunc_normal(depth_scaled_std(0.02, l), 2.0);  // o, down
    Layer layer;
    if (in_side_ && !branch_) layer.attn_norm = store_.add_scale(pre + "attn_norm", d_, ScaleRole::Input, param_);
    layer.attn_pre = pre_norm_site(pre + "attn_prenorm.", layer.attn_norm, l + 1);
    layer.attn = attention(pre, fold_ ? layer.attn_norm : -1, output_proj);
    feed_forward(pre, layer, output_proj, l + 1);
    if (scale_.norm_kind() == NormKind::PeriLn) {
      layer.attn_out_norm = store_.add_scale(pre + "attn_out_norm", d_, ScaleRole::Output, param_);
      layer.ffn_out_norm = store_.add_scale(pre + "ffn_out_norm", d_, ScaleRole::Output, param_);
    }
    return layer;
  }

  // γ_fin, before lm_head (none: no vector). Its role only decides its weight decay (ScaleSpec).
  int final_norm(bool is_input) {
    return none_ ? -1 : store_.add_scale("norm", d_, is_input ? ScaleRole::Input : ScaleRole::Output, param_);
  }
  // The final Norm's own parameters, after γ_fin (depth 0: ln_scaling leaves it unscaled).
  PreNorm final_pre_norm(int gamma) { return pre_norm_site("final_prenorm.", gamma, 0); }
  int lm_head() {
    return matrix("lm_head", m_.vocab_size, d_, ParamInit::trunc_normal(1.0 / std::sqrt(double(d_)), 3.0),
                  ParamKind::LmHead);
  }

 private:
  static constexpr double kHiddenStd = 0.02;  // q, k, v, gate, up, router: trunc-normal within 2σ

  int matrix(const std::string& name, std::int64_t out, std::int64_t in, ParamInit init,
             ParamKind kind = ParamKind::Matrix) {
    return store_.add(name, at::empty({out, in}), kind, init);
  }
  int hidden(const std::string& name, std::int64_t out, ParamKind kind = ParamKind::Matrix) {
    return matrix(name, out, d_, ParamInit::trunc_normal(kHiddenStd, 2.0), kind);
  }
  int in_vec(const std::string& name) { return store_.add_scale(name, d_, ScaleRole::Input, param_); }
  int out_vec(const std::string& name, std::int64_t size) {
    return out_side_ ? store_.add_scale(name, size, ScaleRole::Output, param_) : -1;
  }

  // q, k, v with their scale vectors (the shared γ_attn, or one γ_b each under HG), QK-norm's, then o.
  Attention attention(const std::string& pre, int shared_in, const ParamInit& output_proj) {
    Attention a;
    if (!branch_) {
      a.q.in_scale = a.k.in_scale = a.v.in_scale = shared_in;
    } else if (in_side_) {
      a.q.in_scale = in_vec(pre + "attn.q_in");
      a.k.in_scale = in_vec(pre + "attn.k_in");
      a.v.in_scale = in_vec(pre + "attn.v_in");
    }
    a.q.weight = hidden(pre + "attn.wq", q_out_);
    a.k.weight = hidden(pre + "attn.wk", kv_out_);
    a.v.weight = hidden(pre + "attn.wv", kv_out_);
    a.q.out_scale = out_vec(pre + "attn.q_out", q_out_);
    a.k.out_scale = out_vec(pre + "attn.k_out", kv_out_);
    a.v.out_scale = out_vec(pre + "attn.v_out", kv_out_);
    if (dnp_per_head_) a.q.norm_group = a.k.norm_group = hd_;
    a.qk_norm = m_.qk_norm;
    if (m_.qk_norm && !none_) {
      a.q_norm = store_.add_scale(pre + "attn.q_norm", hd_, ScaleRole::Output, param_);
      a.k_norm = store_.add_scale(pre + "attn.k_norm", hd_, ScaleRole::Output, param_);
    }
    a.wo = matrix(pre + "attn.wo", d_, q_out_, output_proj);
    return a;
  }

  // γ_ffn (or HG's γ_gate, γ_up and, when asked for, γ_router), then the dense SwiGLU or the router and experts.
  void feed_forward(const std::string& pre, Layer& layer, const ParamInit& output_proj, int depth) {
    int gate_in = -1, up_in = -1, router_in = -1;
    if (in_side_ && !branch_) {
      layer.ffn_norm = in_vec(pre + "ffn_norm");
      layer.ffn_pre = pre_norm_site(pre + "ffn_prenorm.", layer.ffn_norm, depth);
      if (fold_) gate_in = up_in = router_in = layer.ffn_norm;
    } else if (in_side_) {
      gate_in = in_vec(pre + "ffn.gate_in");
      up_in = in_vec(pre + "ffn.up_in");
      if (moe_ && m_.moe.router_scale) router_in = in_vec(pre + "ffn.router_in");
    }
    if (!moe_) {
      layer.ffn = swiglu(pre + "ffn.", gate_in, up_in, output_proj);
      return;
    }
    Moe mo;
    mo.router = hidden(pre + "ffn.router", m_.moe.n_experts, ParamKind::Router);
    mo.router_in = router_in;
    mo.top_k = m_.moe.top_k;
    mo.aux_loss_weight = m_.moe.aux_loss_weight;
    mo.z_loss_weight = m_.moe.z_loss_weight;
    for (int e = 0; e < m_.moe.n_experts; ++e) {
      mo.experts.push_back(swiglu(pre + "ffn.experts." + std::to_string(e) + ".", gate_in, up_in, output_proj));
    }
    layer.moe = std::move(mo);
  }

  Ffn swiglu(const std::string& p, int gate_in, int up_in, const ParamInit& output_proj) {
    Ffn f;
    f.gate.in_scale = gate_in;
    f.up.in_scale = up_in;
    f.gate.weight = hidden(p + "gate", ffn_);
    f.up.weight = hidden(p + "up", ffn_);
    f.gate.out_scale = out_vec(p + "gate_out", ffn_);
    f.up.out_scale = out_vec(p + "up_out", ffn_);
    f.down = matrix(p + "down", d_, ffn_, output_proj);
    return f;
  }

  // A Pre-Norm of scale.norm's kind with its own parameters, added right after its γ (pre_norm.h); `depth` is
  // the layer from 1, 0 for the final norm. Inits: docs/variants.md, "The 2026 arms".
  PreNorm pre_norm_site(const std::string& p, int gamma, int depth) {
    PreNorm n;
    n.kind = scale_.norm_kind();
    if (!fold_) n.gamma = gamma;
    const auto vector = [&](const std::string& name, std::int64_t size, ParamInit init) {
      return store_.add(name, at::empty({size}), ParamKind::NormParam, init);
    };
    switch (n.kind) {
      case NormKind::LnScaling: n.depth_factor = depth > 0 ? 1.0 / std::sqrt(double(depth)) : 1.0; break;
      case NormKind::PreAffine: n.affine = store_.add_scale(p + "affine", d_, ScaleRole::Output, param_); break;
      case NormKind::SeedNorm:
        n.alpha = vector(p + "alpha", d_, ParamInit::fill(0.0));  // the baseline at init
        n.dot = vector(p + "beta", d_, ParamInit::trunc_normal(scale_.init_std(), 2.0));
        break;
      case NormKind::Gated:
        n.gate_down = matrix(p + "down", scale_.rank(), d_, ParamInit::trunc_normal(scale_.init_std(), 2.0));
        n.gate_up = matrix(p + "up", d_, scale_.rank(), ParamInit::trunc_normal(scale_.init_std(), 2.0));
        break;
      case NormKind::Dyt:
      case NormKind::Derf:
        n.alpha = vector(p + "alpha", 1, ParamInit::fill(scale_.alpha_init()));
        if (n.kind == NormKind::Derf) n.shift = vector(p + "shift", 1, ParamInit::fill(scale_.shift_init()));
        n.bias = vector(p + "bias", d_, ParamInit::fill(0.0));
        break;
      case NormKind::Rms:
      case NormKind::PeriLn: break;
    }
    return n;
  }

  ParamStore& store_;
  const ModelSpec& m_;
  const std::int64_t d_, hd_, q_out_, kv_out_;
  const bool moe_;
  const std::int64_t ffn_;
  const bool none_, branch_, in_side_, out_side_, dnp_per_head_;
  const ScaleParam param_;
  const ScaleSpec& scale_;
  const bool fold_;  // the Pre-Norms' γ live in the maps after them (folds_gamma)
};

}  // namespace

Model::Model(const ModelSpec& m, const ScaleSpec& s) : spec_(m), scale_(s) {
  dual_norm_ = s.placement == Placement::DualNorm;
  shape_ = {m.n_heads, m.kv_heads(), m.head_dim()};
  ParamBuilder build(store_, m, s);
  embedding_ = build.embedding();
  for (int l = 0; l < m.n_layers; ++l) layers_.push_back(build.layer(l));
  final_norm_ = build.final_norm(s.final_norm_is_input);
  final_pre_ = build.final_pre_norm(final_norm_);
  lm_head_ = build.lm_head();

  rope_ = make_rope_tables(m.seq_len, m.head_dim(), m.rope_theta, device_);
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
    at::Tensor a = attention_forward(store_, layer.attn, shape_, pre_norm(store_, layer.attn_pre, h, eps, fused), ctx);
    if (layer.attn_out_norm >= 0) a = rms_norm(a, d, eps, store_.gamma(layer.attn_out_norm), fused);
    h = h + a;
    at::Tensor x = pre_norm(store_, layer.ffn_pre, h, eps, fused);
    at::Tensor f = layer.moe ? moe_forward(store_, *layer.moe, x, ctx.project, aux) : ffn_forward(store_, layer.ffn, x, ctx.project);
    if (layer.ffn_out_norm >= 0) f = rms_norm(f, d, eps, store_.gamma(layer.ffn_out_norm), fused);
    h = h + f;
  }
  return pre_norm(store_, final_pre_, h, eps, fused);
}

at::Tensor Model::lm_weight() const {
  at::Tensor w = store_[lm_head_];
  if (final_norm_ >= 0 && folds_gamma(scale_.norm_kind())) w = w * store_.gamma(final_norm_).unsqueeze(0);
  return w;
}

at::Tensor Model::logits(const at::Tensor& tokens, bool twice) const {
  at::Tensor aux = at::zeros({}, at::TensorOptions().device(device_));
  return at::linear(forward_hidden(tokens, twice, aux), lm_weight());
}

LossParts Model::loss(const at::Tensor& tokens, const at::Tensor& targets, bool twice) const {
  at::Tensor aux = at::zeros({}, at::TensorOptions().device(device_));
  at::Tensor logits = at::linear(forward_hidden(tokens, twice, aux), lm_weight());
  at::Tensor ce = at::cross_entropy_loss(logits.reshape({-1, logits.size(-1)}), targets.reshape({-1}));
  return {ce, aux};
}

}  // namespace gammalab::trainer
