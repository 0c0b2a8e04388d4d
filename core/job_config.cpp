// The job config's JSON round trip (one field list per struct, for both directions) and validate(): ranges,
// cross-field rules and the size limits of core/limits.h, so that a config that passes cannot ask the trainer,
// the planner or the parameter count for unbounded work.
#include "core/job_config.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/config_error.h"
#include "core/decimal_text.h"
#include "core/job_command.h"
#include "core/json_fields.h"
#include "core/limits.h"
#include "core/model_preset.h"

namespace gammalab {

namespace {

// One list of fields per struct, used for both directions so that they can never disagree.
template <typename F>
void fields(MoeSpec& s, F&& f) {
  f("n_experts", s.n_experts);
  f("top_k", s.top_k);
  f("expert_ffn", s.expert_ffn);
  f("aux_loss_weight", s.aux_loss_weight);
  f("z_loss_weight", s.z_loss_weight);
  f("router_scale", s.router_scale);
}
template <typename F>
void fields(ModelSpec& s, F&& f) {
  f("preset", s.preset);
  f("vocab_size", s.vocab_size);
  f("n_layers", s.n_layers);
  f("d_model", s.d_model);
  f("n_heads", s.n_heads);
  f("n_kv_heads", s.n_kv_heads);
  f("ffn_hidden", s.ffn_hidden);
  f("seq_len", s.seq_len);
  f("qk_norm", s.qk_norm);
  f("norm_eps", s.norm_eps);
  f("rope_theta", s.rope_theta);
  f("moe", s.moe);
}
template <typename F>
void fields(ScaleSpec& s, F&& f) {
  f("variant", s.variant);
  f("sharing", s.sharing);
  f("placement", s.placement);
  f("param", s.param);
  f("decay", s.decay);
  f("dnp_per_head", s.dnp_per_head);
  f("final_norm_is_input", s.final_norm_is_input);
  f("norm", s.norm);
  f("norm_alpha_init", s.norm_alpha_init);
  f("norm_shift_init", s.norm_shift_init);
  f("gate_rank", s.gate_rank);
  f("norm_init_std", s.norm_init_std);
}
template <typename F>
void fields(OptimSpec& s, F&& f) {
  f("name", s.name);
  f("lr", s.lr);
  f("beta1", s.beta1);
  f("beta2", s.beta2);
  f("eps", s.eps);
  f("weight_decay", s.weight_decay);
  f("grad_clip", s.grad_clip);
  f("muon_lr", s.muon_lr);
  f("muon_momentum", s.muon_momentum);
  f("muon_ns_steps", s.muon_ns_steps);
}
template <typename F>
void fields(ScheduleSpec& s, F&& f) {
  f("kind", s.kind);
  f("warmup_steps", s.warmup_steps);
  f("min_lr_ratio", s.min_lr_ratio);
  f("decay_start", s.decay_start);
  f("decay_steps", s.decay_steps);
}
template <typename F>
void fields(DataSpec& s, F&& f) {
  f("train", s.train);
  f("val", s.val);
  f("eval_windows", s.eval_windows);
  f("eval_batches", s.eval_batches);
}
template <typename F>
void fields(JobConfig& s, F&& f) {
  f("model", s.model);
  f("scale", s.scale);
  f("optim", s.optim);
  f("schedule", s.schedule);
  f("data", s.data);
  f("batch_tokens", s.batch_tokens);
  f("micro_batch", s.micro_batch);
  f("steps", s.steps);
  f("seed", s.seed);
  f("log_every", s.log_every);
  f("eval_every", s.eval_every);
  f("ckpt_every", s.ckpt_every);
  f("sharpness_every", s.sharpness_every);
  f("threads", s.threads);
  f("device", s.device);
  f("dtype", s.dtype);
  f("world_size", s.world_size);
  f("nodes", s.nodes);
  f("command", s.command);
  f("declared_params", s.declared_params);
  f("declared_tokens", s.declared_tokens);
  f("imported", s.imported);
}

template <typename T>
constexpr bool is_optional = false;
template <typename T>
constexpr bool is_optional<std::optional<T>> = true;
template <typename T>
constexpr bool is_optional_enum = false;
template <typename T>
constexpr bool is_optional_enum<std::optional<T>> = std::is_enum_v<T>;
template <typename T>
constexpr bool is_struct = !std::is_arithmetic_v<T> && !std::is_enum_v<T> && !std::is_same_v<T, std::string> &&
                           !std::is_same_v<T, std::vector<std::string>> && !is_optional<T>;

// An enum field from its string; anything else is a ConfigError that lists the allowed values.
template <typename E>
E parse_field(const std::string& text, const std::string& path) {
  if (const std::optional<E> value = parse_enum<E>(text)) return *value;
  std::vector<std::string> allowed;  // std::string: this Abseil has its own string_view
  for (const auto& e : EnumNames<E>::list) allowed.emplace_back(e.name);
  std::sort(allowed.begin(), allowed.end());
  throw ConfigError(path, "'" + text + "' is not one of: " + absl::StrJoin(allowed, ", "));
}

// An optional field is written only when set; `every_field` writes an unset one as its type's zero.
template <typename S>
nlohmann::json write(S s, bool every_field = false) {
  nlohmann::json out = nlohmann::json::object();
  fields(s, [&](const char* key, auto& value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (is_struct<T>)
      out[key] = write(value, every_field);
    else if constexpr (is_optional_enum<T>) {
      if (value) out[key] = std::string(enum_name(*value));
      else if (every_field) out[key] = std::string(enum_name(typename T::value_type{}));
    } else if constexpr (is_optional<T>) {
      if (value) out[key] = *value;
      else if (every_field) out[key] = typename T::value_type{};
    } else if constexpr (std::is_enum_v<T>)
      out[key] = std::string(enum_name(value));
    else
      out[key] = value;
  });
  return out;
}

template <typename S>
void read(const nlohmann::json& json, const std::string& path, S& s) {
  JsonFields reader(json, path);
  fields(s, [&](const char* key, auto& value) {
    using T = std::decay_t<decltype(value)>;
    if constexpr (is_struct<T>) {
      read(reader.object(key), reader.child_path(key), value);
    } else if constexpr (std::is_enum_v<T>) {
      std::string text(enum_name(value));
      reader.read(key, text);
      value = parse_field<T>(text, reader.child_path(key));
    } else if constexpr (is_optional_enum<T>) {
      std::optional<std::string> text;
      reader.read(key, text);
      if (text) value = parse_field<typename T::value_type>(*text, reader.child_path(key));
    } else {
      reader.read(key, value);
    }
  });
  reader.reject_unknown();
}

// The dot paths (under `prefix`) of the optional fields of `s`, nested structs included.
template <typename S>
void optional_paths(S s, const std::string& prefix, std::vector<std::string>& out) {
  fields(s, [&](const char* key, auto& value) {
    using T = std::decay_t<decltype(value)>;
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if constexpr (is_optional<T>)
      out.push_back(path);
    else if constexpr (is_struct<T>)
      optional_paths(value, path, out);
  });
}

void require(bool ok, const std::string& path, const std::string& problem) {
  if (!ok) throw ConfigError(path, problem);
}

// Every floating-point field of `s` (recursively) must be finite: JSON from elsewhere may hold inf or nan.
template <typename S>
void require_finite(S& s, const std::string& prefix) {
  fields(s, [&](const char* key, auto& value) {
    using T = std::decay_t<decltype(value)>;
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if constexpr (is_struct<T>)
      require_finite(value, path);
    else if constexpr (std::is_floating_point_v<T>)
      require(std::isfinite(value), path, "must be a finite number");
  });
}

// The 2026 arms (scale.norm other than rms) replace the Pre-Norm itself and keep the baseline's scale vectors:
// one γ per Pre-Norm, before its maps, plain. Their fields belong to the arm that reads them.
void check_norm(const JobConfig& c) {
  const ScaleSpec& s = c.scale;
  const NormKind kind = s.norm_kind();
  const std::string kind_text(enum_name(kind));
  if (kind != NormKind::Rms) {
    const std::string why = " (scale.norm " + kind_text +
                            " replaces the Pre-Norm and keeps the baseline's scale vectors: sharing shared, "
                            "placement before, param plain)";
    require(s.sharing == Sharing::Shared, "scale.sharing", "must be shared, got " +
                                                               std::string(enum_name(s.sharing)) + why);
    require(s.placement == Placement::Before, "scale.placement",
            "must be before, got " + std::string(enum_name(s.placement)) + why);
    require(s.param == ScaleParam::Plain, "scale.param", "must be plain, got " + std::string(enum_name(s.param)) + why);
  }
  // Each arm's own fields: the arms that read it, and its range, (lo, hi] or [lo, hi].
  const struct {
    const char* path;
    std::optional<double> value;
    std::vector<NormKind> arms;
    double lo, hi;
    bool lo_open;
  } fields[] = {
      {"scale.norm_alpha_init", s.norm_alpha_init, {NormKind::Dyt, NormKind::Derf}, 0, 100, true},
      {"scale.norm_shift_init", s.norm_shift_init, {NormKind::Derf}, -10, 10, false},
      {"scale.norm_init_std", s.norm_init_std, {NormKind::SeedNorm, NormKind::Gated}, 0, 1, true},
      {"scale.gate_rank", s.gate_rank ? std::optional<double>(*s.gate_rank) : std::nullopt, {NormKind::Gated}, 1,
       double(limits::kMaxDModel), false},
  };
  for (const auto& field : fields) {
    if (!field.value) continue;
    std::vector<std::string> arms;
    for (const NormKind arm : field.arms) arms.emplace_back(enum_name(arm));
    require(std::find(field.arms.begin(), field.arms.end(), kind) != field.arms.end(), field.path,
            "is for scale.norm " + absl::StrJoin(arms, " or ") + " only (this norm is " + kind_text + ")");
    const double v = *field.value;
    require(std::isfinite(v) && (field.lo_open ? v > field.lo : v >= field.lo) && v <= field.hi, field.path,
            "must be in " + std::string(field.lo_open ? "(" : "[") + number_text(field.lo) + ", " +
                number_text(field.hi) + "], got " + number_text(v));
  }
}

}  // namespace

nlohmann::json to_json(const JobConfig& config) { return write(config); }
nlohmann::json to_json(const ModelSpec& model) { return write(model); }
nlohmann::json to_json(const ScaleSpec& scale) { return write(scale); }

nlohmann::json job_config_every_field() { return write(JobConfig{}, /*every_field=*/true); }

std::vector<std::string> job_config_optional_fields() {
  std::vector<std::string> paths;
  optional_paths(JobConfig{}, "", paths);
  return paths;
}

ModelSpec model_spec_from_json(const nlohmann::json& json, const std::string& path) {
  ModelSpec model;
  read(json, path, model);
  return model;
}

ScaleSpec scale_spec_from_json(const nlohmann::json& json, const std::string& path, ScaleSpec base) {
  read(json, path, base);
  return base;
}

JobConfig job_config_from_json(const nlohmann::json& json) {
  JobConfig config;
  read(json, "", config);
  return config;
}

std::int64_t JobConfig::eval_windows() const {
  if (data.eval_windows) return *data.eval_windows;
  if (data.eval_batches) return std::int64_t{*data.eval_batches} * (micro_batch > 0 ? micro_batch : sequences_per_step());
  return kDefaultEvalWindows;
}

void validate(const JobConfig& c) {
  JobConfig copy = c;  // fields() visits mutable structs
  require_finite(copy, "");
  const ModelSpec& m = c.model;
  // Sizes first: the rules below compute with them.
  const struct {
    const char* path;
    std::int64_t value, limit;
  } sizes[] = {
      {"model.vocab_size", m.vocab_size, limits::kMaxVocab},
      {"model.n_layers", m.n_layers, limits::kMaxLayers},
      {"model.d_model", m.d_model, limits::kMaxDModel},
      {"model.n_heads", m.n_heads, limits::kMaxHeads},
      {"model.n_kv_heads", m.n_kv_heads, limits::kMaxHeads},
      {"model.ffn_hidden", m.ffn_hidden, limits::kMaxFfn},
      {"model.seq_len", m.seq_len, limits::kMaxSeqLen},
      {"model.moe.n_experts", m.moe.n_experts, limits::kMaxExperts},
      {"model.moe.top_k", m.moe.top_k, limits::kMaxExperts},
      {"model.moe.expert_ffn", m.moe.expert_ffn, limits::kMaxFfn},
      {"steps", c.steps, limits::kMaxSteps},
      {"batch_tokens", c.batch_tokens, limits::kMaxBatchTokens},
      {"micro_batch", c.micro_batch, limits::kMaxMicroBatch},
      {"log_every", c.log_every, limits::kMaxInterval},
      {"eval_every", c.eval_every, limits::kMaxInterval},
      {"ckpt_every", c.ckpt_every, limits::kMaxInterval},
      {"sharpness_every", c.sharpness_every, limits::kMaxInterval},
      {"data.eval_windows", c.data.eval_windows.value_or(0), limits::kMaxEvalWindows},
      {"data.eval_batches", c.data.eval_batches.value_or(0), limits::kMaxEvalBatches},
      {"threads", c.threads, limits::kMaxThreads},
      {"optim.muon_ns_steps", c.optim.muon_ns_steps, limits::kMaxMuonNsSteps},
  };
  for (const auto& size : sizes) {
    if (size.value > size.limit) {
      throw ConfigError(size.path, std::to_string(size.value) + " is more than the limit of " +
                                       std::to_string(size.limit));
    }
  }
  if (c.steps > 0 && c.batch_tokens > 0 && c.steps > limits::kMaxTokens / c.batch_tokens) {
    throw ConfigError("steps", "steps * batch_tokens = " + std::to_string(c.steps) + " * " +
                                   std::to_string(c.batch_tokens) + " tokens is more than the limit of " +
                                   std::to_string(limits::kMaxTokens) + " tokens per job");
  }
  require(m.vocab_size >= 2, "model.vocab_size", "must be at least 2");
  require(m.qk_norm || !variant_sets_qk_norm(c.scale.variant), "model.qk_norm",
          "must be true for scale.variant '" + c.scale.variant + "' (the baseline with QK-norm)");
  check_norm(c);
  require(m.n_layers >= 1, "model.n_layers", "must be at least 1");
  require(m.d_model >= 1, "model.d_model", "must be at least 1");
  require(m.n_heads >= 1 && m.d_model % m.n_heads == 0, "model.n_heads", "must be positive and divide d_model");
  require(m.head_dim() % 2 == 0, "model.n_heads", "head dimension d_model/n_heads must be even for RoPE");
  require(m.n_kv_heads >= 0 && m.n_heads % m.kv_heads() == 0, "model.n_kv_heads", "must divide n_heads");
  require(m.ffn_hidden >= 0, "model.ffn_hidden", "must be >= 0");
  require(m.seq_len >= 2, "model.seq_len", "must be at least 2");
  require(m.norm_eps > 0, "model.norm_eps", "must be > 0");
  require(m.rope_theta > 0, "model.rope_theta", "must be > 0");
  require(m.moe.n_experts >= 0, "model.moe.n_experts", "must be >= 0");
  if (m.moe.n_experts > 0) {
    require(m.moe.top_k >= 1 && m.moe.top_k <= m.moe.n_experts, "model.moe.top_k", "must be in [1, n_experts]");
    require(m.moe.expert_ffn >= 0, "model.moe.expert_ffn", "must be >= 0");
  }
  require(c.optim.lr > 0, "optim.lr", "must be > 0");
  require(c.optim.beta1 >= 0 && c.optim.beta1 < 1, "optim.beta1", "must be in [0, 1)");
  require(c.optim.beta2 >= 0 && c.optim.beta2 < 1, "optim.beta2", "must be in [0, 1)");
  require(c.optim.eps > 0, "optim.eps", "must be > 0");
  require(c.optim.weight_decay >= 0, "optim.weight_decay", "must be >= 0");
  require(c.optim.grad_clip >= 0, "optim.grad_clip", "must be >= 0 (0 = off)");
  if (const std::optional<double>& muon_lr = c.optim.muon_lr) {
    require(std::isfinite(*muon_lr) && *muon_lr > 0, "optim.muon_lr",
            "must be finite and > 0 (or unset: optim.lr), got " + number_text(*muon_lr));
  }
  require(c.optim.muon_ns_steps >= 1, "optim.muon_ns_steps", "must be at least 1");
  require(c.schedule.warmup_steps >= 0 && c.schedule.warmup_steps <= c.steps, "schedule.warmup_steps",
          "must be in [0, steps]");
  require(c.schedule.min_lr_ratio >= 0 && c.schedule.min_lr_ratio <= 1, "schedule.min_lr_ratio", "must be in [0, 1]");
  require(c.schedule.decay_start >= 0 && c.schedule.decay_start <= 1, "schedule.decay_start", "must be in [0, 1]");
  if (const std::optional<std::int64_t>& decay = c.schedule.decay_steps) {
    require(c.schedule.kind == ScheduleKind::Wsd, "schedule.decay_steps",
            "is for kind wsd only (this schedule is " + std::string(enum_name(c.schedule.kind)) + ")");
    require(*decay >= 1 && *decay <= c.steps - c.schedule.warmup_steps, "schedule.decay_steps",
            "must be in [1, steps - warmup_steps] = [1, " + std::to_string(c.steps - c.schedule.warmup_steps) +
                "], got " + std::to_string(*decay));
  }
  require(c.steps >= 1, "steps", "must be at least 1");
  require(c.batch_tokens >= m.seq_len && c.batch_tokens % m.seq_len == 0, "batch_tokens",
          "must be a positive multiple of model.seq_len (" + std::to_string(m.seq_len) + ")");
  require(c.micro_batch >= 0, "micro_batch", "must be >= 0");
  if (c.micro_batch > 0) {
    require(c.sequences_per_step() % c.micro_batch == 0, "micro_batch",
            "must divide the sequences per step (" + std::to_string(c.sequences_per_step()) + ")");
  }
  require(c.log_every >= 1, "log_every", "must be at least 1");
  require(c.eval_every >= 0, "eval_every", "must be >= 0");
  require(c.ckpt_every >= 0, "ckpt_every", "must be >= 0");
  require(c.sharpness_every >= 0, "sharpness_every", "must be >= 0");
  require(c.threads >= 0, "threads", "must be >= 0");
  if (c.data.eval_windows) require(*c.data.eval_windows >= 1, "data.eval_windows", "must be at least 1");
  if (c.data.eval_batches) {
    require(*c.data.eval_batches >= 1, "data.eval_batches", "must be at least 1");
    require(!c.data.eval_windows, "data.eval_batches",
            "give data.eval_windows only (eval_batches is the older form, which depends on micro_batch)");
  }
  // The set is held in memory as 64-bit token ids for the whole run: bound it before anything allocates it.
  if (c.data.eval_batches && c.eval_windows() > limits::kMaxEvalWindows) {
    throw ConfigError("data.eval_batches", std::to_string(*c.data.eval_batches) + " batches of " +
                                               std::to_string(c.eval_windows() / *c.data.eval_batches) +
                                               " sequences are more than the limit of " +
                                               std::to_string(limits::kMaxEvalWindows) + " windows");
  }
  if (c.eval_windows() * (m.seq_len + 1) > limits::kMaxEvalTokens) {
    throw ConfigError("data.eval_windows", std::to_string(c.eval_windows()) + " windows of " +
                                               std::to_string(m.seq_len + 1) + " tokens are more than the limit of " +
                                               std::to_string(limits::kMaxEvalTokens) + " tokens");
  }
  if (const std::optional<int>& world_size = c.world_size) {
    require(*world_size >= 1 && *world_size <= limits::kMaxWorldSize, "world_size",
            "must be in [1, " + std::to_string(limits::kMaxWorldSize) + "], got " + std::to_string(*world_size));
    require(c.sequences_per_step() % *world_size == 0, "world_size",
            std::to_string(*world_size) + " ranks do not divide the " + std::to_string(c.sequences_per_step()) +
                " sequences per step");
    if (c.micro_batch > 0) {
      require((c.sequences_per_step() / *world_size) % c.micro_batch == 0, "micro_batch",
              std::to_string(c.micro_batch) + " does not divide the " +
                  std::to_string(c.sequences_per_step() / *world_size) + " sequences per step of each of " +
                  std::to_string(*world_size) + " ranks");
    }
  }
  if (const std::optional<int>& nodes = c.nodes) {
    const int world_size = c.world_size.value_or(1);
    require(*nodes >= 1 && *nodes <= limits::kMaxNodes, "nodes",
            "must be in [1, " + std::to_string(limits::kMaxNodes) + "], got " + std::to_string(*nodes));
    require(world_size % *nodes == 0, "nodes",
            std::to_string(*nodes) + " nodes do not divide the world_size of " + std::to_string(world_size) +
                " ranks (each node runs world_size / nodes of them)");
  }
  check_command(c);
  if (const std::optional<double>& declared = c.declared_params) {
    require(*declared >= 1 && *declared <= kMaxDeclaredParams, "declared_params",
            "must be in [1, " + number_text(kMaxDeclaredParams) + "], got " + number_text(*declared));
  }
  if (const std::optional<double>& declared = c.declared_tokens) {
    require(*declared >= 1 && *declared <= double(limits::kMaxTokens), "declared_tokens",
            "must be in [1, " + number_text(double(limits::kMaxTokens)) + "], got " + number_text(*declared));
  }
  if (const std::optional<std::string>& imported = c.imported) {
    require(!imported->empty() && imported->size() <= kMaxImportedSourceBytes, "imported",
            "must be 1 to " + std::to_string(kMaxImportedSourceBytes) + " bytes, got " +
                std::to_string(imported->size()));
    require(!c.command, "imported", "a run brought in by `gammalab import` has no command: it is never run");
  }
}

}  // namespace gammalab
