#include "worker/trainer/export.h"

#include <iostream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "worker/trainer/checkpoint.h"
#include "worker/trainer/hf_model/sources.h"
#include "worker/trainer/safetensors.h"

namespace gammalab::trainer {

namespace {

// γ = 1 in the vector's own parameterisation.
void reset_to_ones(ParamStore& store, const ScaleVector& sv) {
  store.params()[static_cast<std::size_t>(sv.alpha)].tensor.fill_(identity_value(sv.param));
  if (sv.beta >= 0) store.params()[static_cast<std::size_t>(sv.beta)].tensor.fill_(identity_value(sv.param));
}

// diag(γ_a) W diag(γ_b) of one branch; the shared γ_b is left out when `skip_shared_in`.
at::Tensor effective_weight(const ParamStore& store, const Branch& b, bool dual_norm, bool skip_in) {
  at::Tensor w = store[b.weight].detach().clone();
  if (b.in_scale >= 0 && !skip_in) w.mul_(store.gamma(b.in_scale).detach().unsqueeze(0));
  if (b.out_scale >= 0 && !dual_norm) w.mul_(store.gamma(b.out_scale).detach().unsqueeze(1));
  return w;
}

std::vector<const Branch*> branches_of(const Layer& layer) {
  if (layer.moe) return {&layer.attn.q, &layer.attn.k, &layer.attn.v};  // experts are listed separately
  return {&layer.attn.q, &layer.attn.k, &layer.attn.v, &layer.ffn.gate, &layer.ffn.up};
}

}  // namespace

std::optional<std::string> export_blocker(const Model& model) {
  const ModelSpec& m = model.model_spec();
  if (m.moe.n_experts > 0) return "MoE models have no LlamaForCausalLM layout";
  if (m.qk_norm) return "QK-norm has no place in LlamaForCausalLM";
  if (const NormKind kind = model.scale_spec().norm_kind(); kind != NormKind::Rms) {
    return "scale.norm " + std::string(enum_name(kind)) + " has no place in LlamaForCausalLM (docs/variants.md, Export)";
  }
  if (model.scale_spec().placement == Placement::DualNorm) {
    return "DNP's Norm between W and γ_a cannot be folded (see docs/variants.md, Export)";
  }
  return std::nullopt;
}

void fold_scales(Model& model) {
  at::NoGradGuard no_grad;
  ParamStore& store = model.store();
  const bool dual_norm = model.scale_spec().placement == Placement::DualNorm;
  std::vector<const Branch*> all;
  for (const Layer& layer : model.layers()) {
    for (const Branch* b : branches_of(layer)) all.push_back(b);
    if (layer.moe) {
      for (const Ffn& f : layer.moe->experts) {
        all.push_back(&f.gate);
        all.push_back(&f.up);
      }
    }
  }
  // Compute every folded weight first: shared vectors feed several maps.
  std::vector<at::Tensor> folded;
  for (const Branch* b : all) folded.push_back(effective_weight(store, *b, dual_norm, false));
  std::vector<std::pair<int, at::Tensor>> routers;
  for (const Layer& layer : model.layers()) {
    if (layer.moe && layer.moe->router_in >= 0) {
      routers.emplace_back(layer.moe->router, store[layer.moe->router].detach() * store.gamma(layer.moe->router_in).detach().unsqueeze(0));
    }
  }
  // γ_fin folds where the final norm leaves it to W_lm (pre_norm.h); the Pre-Norms' γ of the other arms are in
  // no branch (Branch::in_scale is -1 there), so they stay.
  const bool fold_final = model.final_norm() >= 0 && folds_gamma(model.scale_spec().norm_kind());
  at::Tensor lm = store[model.lm_head()].detach().clone();
  if (fold_final) lm.mul_(store.gamma(model.final_norm()).detach().unsqueeze(0));

  for (std::size_t i = 0; i < all.size(); ++i) store.params()[static_cast<std::size_t>(all[i]->weight)].tensor.copy_(folded[i]);
  for (auto& [idx, w] : routers) store.params()[static_cast<std::size_t>(idx)].tensor.copy_(w);
  store.params()[static_cast<std::size_t>(model.lm_head())].tensor.copy_(lm);
  for (const Branch* b : all) {
    if (b->in_scale >= 0) reset_to_ones(store, store.scales()[static_cast<std::size_t>(b->in_scale)]);
    if (b->out_scale >= 0 && !dual_norm) reset_to_ones(store, store.scales()[static_cast<std::size_t>(b->out_scale)]);
  }
  for (const Layer& layer : model.layers()) {
    if (layer.moe && layer.moe->router_in >= 0) reset_to_ones(store, store.scales()[static_cast<std::size_t>(layer.moe->router_in)]);
  }
  if (fold_final) reset_to_ones(store, store.scales()[static_cast<std::size_t>(model.final_norm())]);
}

namespace {

void export_llama(const Model& model, const std::filesystem::path& out) {
  at::NoGradGuard no_grad;
  const ParamStore& store = model.store();
  const ModelSpec& m = model.model_spec();
  const std::int64_t d = m.d_model;
  const bool dual_norm = false;
  auto ones = [&] { return at::ones({d}); };
  SafeTensors st;
  auto put = [&](const std::string& name, const at::Tensor& t) { st.tensors.emplace_back(name, t.detach().to(at::kCPU).to(at::kFloat).contiguous()); };
  put("model.embed_tokens.weight", store[model.embedding()]);
  for (std::size_t l = 0; l < model.layers().size(); ++l) {
    const Layer& layer = model.layers()[l];
    const std::string pre = "model.layers." + std::to_string(l) + ".";
    // A shared γ stays as the norm weight (the baseline's own layout); per-branch γ are folded into W.
    const bool attn_shared = layer.attn_norm >= 0, ffn_shared = layer.ffn_norm >= 0;
    put(pre + "input_layernorm.weight", attn_shared ? store.gamma(layer.attn_norm) : ones());
    put(pre + "self_attn.q_proj.weight", effective_weight(store, layer.attn.q, dual_norm, attn_shared));
    put(pre + "self_attn.k_proj.weight", effective_weight(store, layer.attn.k, dual_norm, attn_shared));
    put(pre + "self_attn.v_proj.weight", effective_weight(store, layer.attn.v, dual_norm, attn_shared));
    put(pre + "self_attn.o_proj.weight", store[layer.attn.wo]);
    put(pre + "post_attention_layernorm.weight", ffn_shared ? store.gamma(layer.ffn_norm) : ones());
    put(pre + "mlp.gate_proj.weight", effective_weight(store, layer.ffn.gate, dual_norm, ffn_shared));
    put(pre + "mlp.up_proj.weight", effective_weight(store, layer.ffn.up, dual_norm, ffn_shared));
    put(pre + "mlp.down_proj.weight", store[layer.ffn.down]);
  }
  put("model.norm.weight", model.final_norm() >= 0 ? store.gamma(model.final_norm()) : ones());
  put("lm_head.weight", store[model.lm_head()]);
  st.metadata["format"] = "pt";

  const nlohmann::json config = {
      {"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"hidden_size", d},
      {"intermediate_size", m.ffn()}, {"num_attention_heads", m.n_heads}, {"num_key_value_heads", m.kv_heads()},
      {"num_hidden_layers", m.n_layers}, {"vocab_size", m.vocab_size}, {"rms_norm_eps", m.norm_eps},
      {"rope_theta", m.rope_theta}, {"max_position_embeddings", m.seq_len}, {"head_dim", m.head_dim()},
      {"hidden_act", "silu"}, {"tie_word_embeddings", false}, {"attention_bias", false}, {"mlp_bias", false},
      {"initializer_range", 0.02}, {"torch_dtype", "float32"},
      {"gammalab", {{"variant", model.scale_spec().variant}, {"preset", m.preset}}}};
  std::filesystem::create_directories(out);
  write_safetensors(out / "model.safetensors", st);
  write_file_atomic(out / "config.json", config.dump(2) + "\n");
}

// Every parameter as trained, named by the custom-code model's modules: a matrix X is model.X.weight (lm_head
// stays lm_head.weight), a scale vector S is model.S.alpha and, for OR/ER, model.S.beta.
void export_gammalab(const Model& model, const std::filesystem::path& out) {
  at::NoGradGuard no_grad;
  const ParamStore& store = model.store();
  const ModelSpec& m = model.model_spec();
  const ScaleSpec& s = model.scale_spec();
  SafeTensors st;
  for (const Param& p : store.params()) {
    std::string name;
    if (p.is_scale()) {
      name = "model." + store.scales()[static_cast<std::size_t>(p.scale)].name +
             (p.kind == ParamKind::ScaleAlpha ? ".alpha" : ".beta");
    } else if (p.kind == ParamKind::NormParam) {
      name = "model." + p.name;  // a Pre-Norm's own nn.Parameter (modeling_gammalab.py, PreNorm)
    } else {
      name = p.kind == ParamKind::LmHead ? "lm_head.weight" : "model." + p.name + ".weight";
    }
    st.tensors.emplace_back(name, p.tensor.detach().to(at::kCPU).to(at::kFloat).contiguous());
  }
  st.metadata["format"] = "pt";
  const nlohmann::json config = {
      {"architectures", {"GammalabForCausalLM"}}, {"model_type", "gammalab"},
      {"auto_map", {{"AutoConfig", "configuration_gammalab.GammalabConfig"},
                    {"AutoModelForCausalLM", "modeling_gammalab.GammalabForCausalLM"}}},
      {"hidden_size", m.d_model}, {"intermediate_size", m.ffn_width()},
      {"num_attention_heads", m.n_heads}, {"num_key_value_heads", m.kv_heads()},
      {"num_hidden_layers", m.n_layers}, {"vocab_size", m.vocab_size}, {"rms_norm_eps", m.norm_eps},
      {"rope_theta", m.rope_theta}, {"max_position_embeddings", m.seq_len},
      {"scale_sharing", enum_name(s.sharing)}, {"scale_placement", enum_name(s.placement)},
      {"scale_param", enum_name(s.param)}, {"dnp_per_head", s.dnp_per_head}, {"qk_norm", m.qk_norm},
      {"num_experts", m.moe.n_experts}, {"num_experts_per_tok", m.moe.top_k},
      {"router_scale", m.moe.router_scale}, {"norm_kind", enum_name(s.norm_kind())}, {"gate_rank", s.rank()},
      {"tie_word_embeddings", false}, {"torch_dtype", "float32"},
      {"gammalab", {{"variant", s.variant}, {"preset", m.preset}}}};
  std::filesystem::create_directories(out);
  write_safetensors(out / "model.safetensors", st);
  write_file_atomic(out / "configuration_gammalab.py", hf_model::kConfigurationPy);
  write_file_atomic(out / "modeling_gammalab.py", hf_model::kModelingPy);
  write_file_atomic(out / "config.json", config.dump(2) + "\n");
}

}  // namespace

ExportLayout parse_export_layout(const std::string& name) {
  if (name == "auto") return ExportLayout::Auto;
  if (name == "llama") return ExportLayout::Llama;
  if (name == "gammalab") return ExportLayout::Gammalab;
  throw std::invalid_argument("--layout: '" + name + "' is not a layout (auto, llama or gammalab)");
}

ExportLayout export_hf(const Model& model, const std::filesystem::path& out, ExportLayout layout) {
  const auto blocker = export_blocker(model);
  if (layout == ExportLayout::Auto) layout = blocker ? ExportLayout::Gammalab : ExportLayout::Llama;
  if (layout == ExportLayout::Llama) {
    if (blocker) throw std::runtime_error("cannot export as LlamaForCausalLM: " + *blocker + " (--layout gammalab can)");
    export_llama(model, out);
  } else {
    export_gammalab(model, out);
  }
  return layout;
}

ExportLayout export_checkpoint(const JobConfig& config, const std::filesystem::path& ckpt_dir,
                               const std::filesystem::path& out, ExportLayout layout) {
  const auto file = latest_checkpoint(ckpt_dir);
  if (!file) throw std::runtime_error("no checkpoint in " + ckpt_dir.string());
  Model model(config.model, config.scale);
  load_checkpoint(*file, model, nullptr, &std::cerr);
  return export_hf(model, out, layout);
}

std::unique_ptr<Model> load_hf(const std::filesystem::path& dir) {
  const auto cfg = nlohmann::json::parse(read_file(dir / "config.json"));
  ModelSpec m;
  m.vocab_size = cfg.at("vocab_size").get<int>();
  m.n_layers = cfg.at("num_hidden_layers").get<int>();
  m.d_model = cfg.at("hidden_size").get<int>();
  m.n_heads = cfg.at("num_attention_heads").get<int>();
  m.n_kv_heads = cfg.value("num_key_value_heads", m.n_heads);
  m.ffn_hidden = cfg.at("intermediate_size").get<int>();
  m.seq_len = cfg.value("max_position_embeddings", 2048);
  m.norm_eps = cfg.value("rms_norm_eps", 1e-5);
  m.rope_theta = cfg.value("rope_theta", 10000.0);
  ScaleSpec s;  // baseline
  auto model = std::make_unique<Model>(m, s);
  const SafeTensors st = read_safetensors(dir / "model.safetensors");
  std::map<std::string, std::string> names = {{"tok_embeddings", "model.embed_tokens.weight"},
                                              {"norm", "model.norm.weight"},
                                              {"lm_head", "lm_head.weight"}};
  for (int l = 0; l < m.n_layers; ++l) {
    const std::string ours = "layers." + std::to_string(l) + ".", hf = "model.layers." + std::to_string(l) + ".";
    names[ours + "attn_norm"] = hf + "input_layernorm.weight";
    names[ours + "attn.wq"] = hf + "self_attn.q_proj.weight";
    names[ours + "attn.wk"] = hf + "self_attn.k_proj.weight";
    names[ours + "attn.wv"] = hf + "self_attn.v_proj.weight";
    names[ours + "attn.wo"] = hf + "self_attn.o_proj.weight";
    names[ours + "ffn_norm"] = hf + "post_attention_layernorm.weight";
    names[ours + "ffn.gate"] = hf + "mlp.gate_proj.weight";
    names[ours + "ffn.up"] = hf + "mlp.up_proj.weight";
    names[ours + "ffn.down"] = hf + "mlp.down_proj.weight";
  }
  at::NoGradGuard no_grad;
  for (auto& p : model->store().params()) {
    const at::Tensor* t = st.find(names.at(p.name));
    if (t == nullptr) throw std::runtime_error("model.safetensors lacks " + names.at(p.name));
    if (!t->sizes().equals(p.tensor.sizes())) throw std::runtime_error(names.at(p.name) + " has the wrong shape");
    p.tensor.copy_(t->to(at::kFloat));
  }
  return model;
}

}  // namespace gammalab::trainer
