#pragma once
// The fully resolved configuration of one training job. The sweep expander produces it, the coordinator
// stores it (as JSON), and gammalab-train reads it. Every field has a default; unknown keys are errors.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gammalab {

// The fields with a fixed set of values. Each is parsed from its string once, when the config is read, and
// written back as the same string; everything else compares the enums.
enum class Sharing { None, Shared, Branch };              // none | shared | branch (HG)
enum class Placement { Before, After, Dual, DualNorm };   // before | after (AP) | dual (DP) | dual_norm (DNP)
enum class ScaleParam { Plain, MagDirOrig, MagDirExp };   // plain | magdir_orig (OR) | magdir_exp (ER)
enum class ScaleDecay { None, All, InputOnly };           // none | all | input_only (IWD)
// What each Pre-Norm computes (docs/variants.md, "The 2026 arms"): the paper's scale-free RMSNorm, or a rival.
enum class NormKind { Rms, SeedNorm, PeriLn, Gated, PreAffine, LnScaling, Dyt, Derf };
enum class OptimizerKind { AdamW, Muon };                 // adamw | muon
enum class ScheduleKind { Cosine, Wsd, Constant };        // cosine | wsd | constant
enum class DeviceKind { Cpu, Cuda };                      // cpu | cuda
enum class DType { Float32, BFloat16 };                   // float32 | bfloat16

// Each value with its one spelling (JSON, messages, reports), in declaration order.
template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};
template <typename E>
struct EnumNames;  // defines `static constexpr std::array<EnumName<E>, N> list`
template <>
struct EnumNames<Sharing> {
  static constexpr std::array<EnumName<Sharing>, 3> list{
      {{Sharing::None, "none"}, {Sharing::Shared, "shared"}, {Sharing::Branch, "branch"}}};
};
template <>
struct EnumNames<Placement> {
  static constexpr std::array<EnumName<Placement>, 4> list{{{Placement::Before, "before"},
                                                            {Placement::After, "after"},
                                                            {Placement::Dual, "dual"},
                                                            {Placement::DualNorm, "dual_norm"}}};
};
template <>
struct EnumNames<ScaleParam> {
  static constexpr std::array<EnumName<ScaleParam>, 3> list{{{ScaleParam::Plain, "plain"},
                                                             {ScaleParam::MagDirOrig, "magdir_orig"},
                                                             {ScaleParam::MagDirExp, "magdir_exp"}}};
};
template <>
struct EnumNames<ScaleDecay> {
  static constexpr std::array<EnumName<ScaleDecay>, 3> list{
      {{ScaleDecay::None, "none"}, {ScaleDecay::All, "all"}, {ScaleDecay::InputOnly, "input_only"}}};
};
template <>
struct EnumNames<NormKind> {
  static constexpr std::array<EnumName<NormKind>, 8> list{{{NormKind::Rms, "rms"},
                                                           {NormKind::SeedNorm, "seednorm"},
                                                           {NormKind::PeriLn, "peri_ln"},
                                                           {NormKind::Gated, "gated"},
                                                           {NormKind::PreAffine, "pre_affine"},
                                                           {NormKind::LnScaling, "ln_scaling"},
                                                           {NormKind::Dyt, "dyt"},
                                                           {NormKind::Derf, "derf"}}};
};
template <>
struct EnumNames<OptimizerKind> {
  static constexpr std::array<EnumName<OptimizerKind>, 2> list{
      {{OptimizerKind::AdamW, "adamw"}, {OptimizerKind::Muon, "muon"}}};
};
template <>
struct EnumNames<ScheduleKind> {
  static constexpr std::array<EnumName<ScheduleKind>, 3> list{
      {{ScheduleKind::Cosine, "cosine"}, {ScheduleKind::Wsd, "wsd"}, {ScheduleKind::Constant, "constant"}}};
};
template <>
struct EnumNames<DeviceKind> {
  static constexpr std::array<EnumName<DeviceKind>, 2> list{{{DeviceKind::Cpu, "cpu"}, {DeviceKind::Cuda, "cuda"}}};
};
template <>
struct EnumNames<DType> {
  static constexpr std::array<EnumName<DType>, 2> list{{{DType::Float32, "float32"}, {DType::BFloat16, "bfloat16"}}};
};

template <typename E>
constexpr std::string_view enum_name(E value) {
  for (const auto& e : EnumNames<E>::list) {
    if (e.value == value) return e.name;
  }
  return "?";
}
template <typename E>
constexpr std::optional<E> parse_enum(std::string_view name) {
  for (const auto& e : EnumNames<E>::list) {
    if (e.name == name) return e.value;
  }
  return std::nullopt;
}

// Mixture-of-experts FFN (Llama-MoE). n_experts == 0 means a dense model.
struct MoeSpec {
  int n_experts = 0;
  int top_k = 2;
  int expert_ffn = 0;             // hidden size of each expert; 0 = ffn_hidden of the model
  double aux_loss_weight = 0.01;  // OLMoE load-balancing loss
  double z_loss_weight = 0.001;   // router z-loss
  bool router_scale = false;      // optional γ_router (Input-Norm) before the router under HG
};

struct ModelSpec {
  std::string preset{};  // the preset it was resolved from (label only)
  int vocab_size = 256;
  int n_layers = 2;
  int d_model = 64;
  int n_heads = 4;
  int n_kv_heads = 0;  // 0 = n_heads (no grouped-query attention)
  int ffn_hidden = 0;  // 0 = floor(8 d / 3)
  int seq_len = 128;
  bool qk_norm = false;
  double norm_eps = 1e-5;
  double rope_theta = 10000.0;
  MoeSpec moe{};

  int kv_heads() const { return n_kv_heads > 0 ? n_kv_heads : n_heads; }
  int ffn() const { return ffn_hidden > 0 ? ffn_hidden : static_cast<int>(8 * std::int64_t(d_model) / 3); }
  // The hidden width of each FFN the model has: an expert's under MoE (expert_ffn, or ffn() when unset).
  int ffn_width() const { return moe.n_experts > 0 && moe.expert_ffn > 0 ? moe.expert_ffn : ffn(); }
  int head_dim() const { return d_model / n_heads; }
};

// The composable scale-vector axes (docs/variants.md, Axes). `variant` names the preset they came from.
struct ScaleSpec {
  std::string variant = "baseline";
  Sharing sharing = Sharing::Shared;
  Placement placement = Placement::Before;
  ScaleParam param = ScaleParam::Plain;
  ScaleDecay decay = ScaleDecay::None;
  bool dnp_per_head = false;         // DNP's Norm per head for q and k instead of over the whole output
  // γ_fin's role. The paper's own summary names "the normalization before the final output" as an Output-Norm
  // (not decayed under IWD); true tags it Input-Norm, as the definition "followed by a linear map" would.
  bool final_norm_is_input = false;
  // The Pre-Norms' own function (NormKind). Unset (the default; absent from the JSON, so configs written before
  // it keep their hashes): rms. The rivals keep the baseline's axes (shared, before, plain; validate() checks).
  std::optional<NormKind> norm{};
  // DyT's and Derf's α at initialisation (one learnable scalar per norm). Unset: 0.5, DyT's published default.
  std::optional<double> norm_alpha_init{};
  // Derf's shift s at initialisation (one learnable scalar per norm). Unset: 0 (erf centred, odd like tanh).
  std::optional<double> norm_shift_init{};
  // GatedNorm's bottleneck rank r. Unset: 128, as an open production MoE recipe uses.
  std::optional<int> gate_rank{};
  // The std of the trunc-normal (within 2σ) init of SeeDNorm's β and GatedNorm's W_down and W_up, which their
  // sources leave open. Unset: 0.02, the hidden projections' own.
  std::optional<double> norm_init_std{};

  NormKind norm_kind() const { return norm.value_or(NormKind::Rms); }
  double alpha_init() const { return norm_alpha_init.value_or(0.5); }
  double shift_init() const { return norm_shift_init.value_or(0.0); }
  int rank() const { return gate_rank.value_or(128); }
  double init_std() const { return norm_init_std.value_or(0.02); }
};

struct OptimSpec {
  OptimizerKind name = OptimizerKind::AdamW;  // muon: Muon on 2-D hidden matrices, AdamW elsewhere
  double lr = 1e-3;                           // peak LR of AdamW groups
  double beta1 = 0.9;
  double beta2 = 0.95;
  double eps = 1e-8;
  double weight_decay = 0.1;
  double grad_clip = 1.0;  // 0 = off
  // Peak LR of the Muon matrices. Unset (the default; absent from the JSON): optim.lr. Muon's update is
  // RMS-matched to AdamW's (muon.h), so both take the same peak LR and the same decay (Moonlight's rule,
  // Liu et al. 2025, "Muon is Scalable for LLM Training") and one LR grid serves both optimizers. Set: an override.
  std::optional<double> muon_lr{};
  double muon_momentum = 0.95;
  int muon_ns_steps = 5;

  double muon_peak_lr() const { return muon_lr.value_or(lr); }
};

struct ScheduleSpec {
  ScheduleKind kind = ScheduleKind::Cosine;
  std::int64_t warmup_steps = 0;
  double min_lr_ratio = 0.1;  // cosine floor as a fraction of the peak
  double decay_start = 0.8;   // WSD: fraction of training at which the linear decay to 0 starts
  // WSD: the decay's length in steps, ending at the last step. Unset (the default; absent from the JSON, so
  // configs written before it keep their hashes): decay_start gives it. Set: it replaces decay_start, so that a
  // cooldown branch (docs/branches.md) decays over the length its budget asks for, whatever its total.
  std::optional<std::int64_t> decay_steps{};
};

struct DataSpec {
  std::string train;     // path of a train shard (.bin) or a directory of shards
  std::string val;       // path of a val shard; empty = none
  // The held-out set of every evaluation: the first eval_windows windows of seq_len + 1 tokens of `val`, so it is
  // the same for every micro_batch, world size and model size of a sweep (given one seq_len). Unset: the
  // default below, or what an old config's eval_batches meant.
  std::optional<int> eval_windows;
  // The old way to size that set, kept so that configs written before eval_windows still run as they did:
  // eval_batches micro batches, so the set changed with micro_batch. A config gives one of the two.
  std::optional<int> eval_batches;
};

inline constexpr int kDefaultEvalWindows = 128;

struct JobConfig {
  ModelSpec model;
  ScaleSpec scale;
  OptimSpec optim;
  ScheduleSpec schedule;
  DataSpec data;
  std::int64_t batch_tokens = 4096;  // global batch per optimizer step, in tokens
  int micro_batch = 0;               // sequences per forward pass; 0 = the whole batch at once
  std::int64_t steps = 100;
  std::uint64_t seed = 0;
  int log_every = 10;
  int eval_every = 0;             // 0 = only at the end
  int ckpt_every = 0;             // 0 = no periodic checkpoints
  int sharpness_every = 0;        // 0 = off
  int threads = 0;                // 0 = LibTorch's default
  DeviceKind device = DeviceKind::Cpu;
  DType dtype = DType::Float32;   // bfloat16: autocast on CUDA
  // Data-parallel ranks (docs/distributed.md). Unset: one process, unless a launcher's environment (RANK,
  // WORLD_SIZE, ...) says otherwise. It never changes the curve: the global batch is batch_tokens at any size.
  std::optional<int> world_size{};
  // The machines (workers) the ranks span: world_size / nodes ranks on each (docs/distributed.md). Unset: one.
  std::optional<int> nodes{};
  // A program of the user's own to run instead of gammalab-train, with `{field}` placeholders (core/job_command.h,
  // docs/own-program.md). Unset (the default; absent from the JSON, so other configs keep their hashes): ours.
  std::optional<std::vector<std::string>> command{};
  // The fit's N as such a program declares it (parameters activated per token, embeddings left out). Unset: N is
  // counted from `model` (core/param_count.h), as for gammalab-train.
  std::optional<double> declared_params{};
  // The fit's D as such a program, or an imported run, declares it: the tokens the run trained on. Unset: steps
  // times batch_tokens.
  std::optional<double> declared_tokens{};
  // A run trained elsewhere and brought in by `gammalab import` (docs/own-program.md, "Runs in"): where it came
  // from (a file, a TensorBoard directory, an MLflow run). Such a job is stored finished and is never run; a
  // sweep file cannot set it.
  std::optional<std::string> imported{};

  // Ranks on each machine: the slots the job takes of each worker it runs on.
  int ranks_per_node() const { return world_size.value_or(1) / nodes.value_or(1); }

  std::int64_t sequences_per_step() const { return batch_tokens / model.seq_len; }
  // The windows the held-out set has (DataSpec::eval_windows), resolved.
  std::int64_t eval_windows() const;
};

// Strict JSON round trip. from_json throws ConfigError naming the dot path of the bad field (for a value
// outside an enum's set, the allowed values too). An unset optional field is absent from the JSON.
nlohmann::json to_json(const JobConfig& config);
JobConfig job_config_from_json(const nlohmann::json& json);

// Every key to_json can write: the defaults, with each optional field that they leave unset given a value of
// its type (0). The sweep schema takes its keys and kinds from here.
nlohmann::json job_config_every_field();
// The dot paths of the optional fields.
std::vector<std::string> job_config_optional_fields();

// Checks ranges and cross-field rules (heads divide d_model, batch divides into sequences, ...) and the size
// limits of core/limits.h; every number must be finite. Throws ConfigError with the field's dot path.
void validate(const JobConfig& config);

}  // namespace gammalab

namespace gammalab {
// Strict readers for the parts that presets supply on their own (model presets, variant overrides).
ModelSpec model_spec_from_json(const nlohmann::json& json, const std::string& path);
ScaleSpec scale_spec_from_json(const nlohmann::json& json, const std::string& path, ScaleSpec base = {});
nlohmann::json to_json(const ModelSpec& model);
nlohmann::json to_json(const ScaleSpec& scale);
}  // namespace gammalab
