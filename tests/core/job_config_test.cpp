// Job config at its boundary: the fields with a fixed set of values are parsed into enums when the config is
// read, written back as the same strings, and anything else is a ConfigError naming the field and the values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/config_error.h"
#include "core/job_config.h"
#include "core/limits.h"
#include "core/model_preset.h"
#include "tests/core/sweep_test_support.h"

namespace gammalab {
namespace {

TEST(JobConfig, EnumFieldsRoundTripAsTheirStrings) {
  nlohmann::json json = to_json(JobConfig{});
  json["scale"]["sharing"] = "branch";
  json["scale"]["placement"] = "dual_norm";
  json["scale"]["param"] = "magdir_orig";
  json["scale"]["decay"] = "input_only";
  json["optim"]["name"] = "muon";
  json["schedule"]["kind"] = "wsd";
  json["device"] = "cuda";
  json["dtype"] = "bfloat16";
  const JobConfig c = job_config_from_json(json);
  EXPECT_EQ(c.scale.sharing, Sharing::Branch);
  EXPECT_EQ(c.scale.placement, Placement::DualNorm);
  EXPECT_EQ(c.scale.param, ScaleParam::MagDirOrig);
  EXPECT_EQ(c.scale.decay, ScaleDecay::InputOnly);
  EXPECT_EQ(c.optim.name, OptimizerKind::Muon);
  EXPECT_EQ(c.schedule.kind, ScheduleKind::Wsd);
  EXPECT_EQ(c.device, DeviceKind::Cuda);
  EXPECT_EQ(c.dtype, DType::BFloat16);
  EXPECT_EQ(to_json(c).dump(), json.dump());
}

TEST(JobConfig, UnknownEnumValueNamesTheFieldAndTheAllowedValues) {
  auto error_of = [](const char* field, const char* key, const char* value) -> std::string {
    nlohmann::json json = to_json(JobConfig{});
    (*field ? json[field][key] : json[key]) = value;
    try {
      job_config_from_json(json);
    } catch (const ConfigError& e) {
      return e.path() + " | " + e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of("scale", "sharing", "brunch"),
            "scale.sharing | scale.sharing: 'brunch' is not one of: branch, none, shared");
  EXPECT_EQ(error_of("scale", "placement", "x"),
            "scale.placement | scale.placement: 'x' is not one of: after, before, dual, dual_norm");
  EXPECT_EQ(error_of("optim", "name", "sgd"), "optim.name | optim.name: 'sgd' is not one of: adamw, muon");
  EXPECT_EQ(error_of("", "dtype", "float16"), "dtype | dtype: 'float16' is not one of: bfloat16, float32");
  // A preset's own scale block is read the same way.
  EXPECT_THROW(scale_spec_from_json(nlohmann::json{{"decay", "some"}}, "scale"), ConfigError);
}

TEST(JobConfig, WrongTypeForAnEnumFieldIsATypeError) {
  nlohmann::json json = to_json(JobConfig{});
  json["schedule"]["kind"] = 3;
  try {
    job_config_from_json(json);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "schedule.kind");
    EXPECT_NE(std::string(e.what()).find("expected a string"), std::string::npos) << e.what();
  }
}

// optim.muon_lr is optional: unset (the default) it is absent from the JSON and Muon takes optim.lr; set, it is
// written and read back as a number and overrides optim.lr for Muon's matrices.
TEST(JobConfig, MuonLrIsAnOptionalOverrideOfLr) {
  JobConfig c;
  c.optim.lr = 4e-3;
  EXPECT_FALSE(c.optim.muon_lr.has_value());
  EXPECT_DOUBLE_EQ(c.optim.muon_peak_lr(), 4e-3);
  const nlohmann::json unset = to_json(c);
  EXPECT_FALSE(unset["optim"].contains("muon_lr")) << unset["optim"].dump();
  EXPECT_FALSE(job_config_from_json(unset).optim.muon_lr.has_value());

  c.optim.muon_lr = 0.02;
  const nlohmann::json set = to_json(c);
  EXPECT_EQ(set["optim"]["muon_lr"], 0.02);
  const JobConfig back = job_config_from_json(set);
  ASSERT_TRUE(back.optim.muon_lr.has_value());
  EXPECT_DOUBLE_EQ(back.optim.muon_peak_lr(), 0.02);
  EXPECT_EQ(to_json(back).dump(), set.dump());

  nlohmann::json wrong = unset;
  wrong["optim"]["muon_lr"] = "fast";
  try {
    job_config_from_json(wrong);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "optim.muon_lr: expected a number, got string");
  }
  // The schema's view: every field, the optional one included.
  EXPECT_TRUE(job_config_every_field()["optim"].contains("muon_lr"));
  const std::vector<std::string> optional{"scale.norm", "scale.norm_alpha_init", "scale.norm_shift_init",
                                          "scale.gate_rank", "scale.norm_init_std", "optim.muon_lr", "schedule.decay_steps", "data.eval_windows",
                                          "data.eval_batches", "world_size", "nodes", "command", "declared_params",
                                          "declared_tokens", "imported"};
  EXPECT_EQ(job_config_optional_fields(), optional);
}

// schedule.decay_steps: a WSD decay's length in steps (cooldown branches, docs/branches.md). Unset, the JSON and
// hash of every existing config stay as they were; set, it must fit after the warmup and is for WSD only.
TEST(JobConfig, DecayStepsIsAnOptionalWsdLength) {
  JobConfig c;
  c.steps = 100;
  c.schedule.warmup_steps = 10;
  EXPECT_FALSE(to_json(c)["schedule"].contains("decay_steps"));
  c.schedule.decay_steps = 20;
  try {
    validate(c);
    FAIL() << "cosine with decay_steps accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "schedule.decay_steps: is for kind wsd only (this schedule is cosine)");
  }
  c.schedule.kind = ScheduleKind::Wsd;
  EXPECT_NO_THROW(validate(c));
  EXPECT_EQ(job_config_from_json(to_json(c)).schedule.decay_steps, 20);
  for (const std::int64_t bad : {std::int64_t{0}, std::int64_t{91}, std::int64_t{-5}}) {
    c.schedule.decay_steps = bad;
    try {
      validate(c);
      FAIL() << bad << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_EQ(std::string(e.what()), "schedule.decay_steps: must be in [1, steps - warmup_steps] = [1, 90], got " +
                                           std::to_string(bad));
    }
  }
}

// What validate() says of `config`, or "no error".
std::string validation_error(const JobConfig& config) {
  try {
    validate(config);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// world_size is optional (absent: one process, or what a launcher says); set, it must be in range and split the
// global batch, and each rank's share must split into micro-batches.
TEST(JobConfig, WorldSizeIsOptionalAndChecked) {
  JobConfig c;
  c.model.seq_len = 64;
  c.batch_tokens = 64 * 8;
  EXPECT_FALSE(to_json(c).contains("world_size"));
  c.world_size = 2;
  EXPECT_EQ(job_config_from_json(to_json(c)).world_size, 2);
  validate(c);
  JobConfig bad = c;
  bad.world_size = 0;
  EXPECT_EQ(validation_error(bad), "world_size: must be in [1, 65536], got 0");
  bad.world_size = 3;
  EXPECT_EQ(validation_error(bad), "world_size: 3 ranks do not divide the 8 sequences per step");
  bad.world_size = 2;
  bad.micro_batch = 8;
  EXPECT_EQ(validation_error(bad), "micro_batch: 8 does not divide the 4 sequences per step of each of 2 ranks");
  nlohmann::json huge = to_json(c);
  huge["world_size"] = 1ll << 40;  // would wrap silently in an int
  try {
    job_config_from_json(huge);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "world_size: 1099511627776 is outside the range of the field [-2147483648, 2147483647]");
  }
}

// nodes is optional too (absent: one machine); set, it must be in range and split world_size into equal shares,
// which are the slots the job takes of each worker.
TEST(JobConfig, NodesAreOptionalAndSplitTheWorld) {
  JobConfig c;
  c.model.seq_len = 64;
  c.batch_tokens = 64 * 8;
  EXPECT_FALSE(to_json(c).contains("nodes"));
  EXPECT_EQ(c.ranks_per_node(), 1);
  c.world_size = 4;
  c.nodes = 2;
  EXPECT_EQ(job_config_from_json(to_json(c)).nodes, 2);
  EXPECT_EQ(c.ranks_per_node(), 2);
  validate(c);
  JobConfig bad = c;
  bad.nodes = 0;
  EXPECT_EQ(validation_error(bad), "nodes: must be in [1, 1024], got 0");
  bad.nodes = 3;
  EXPECT_EQ(validation_error(bad), "nodes: 3 nodes do not divide the world_size of 4 ranks (each node runs world_size / nodes of them)");
  bad.world_size.reset();
  bad.nodes = 2;
  EXPECT_EQ(validation_error(bad), "nodes: 2 nodes do not divide the world_size of 1 ranks (each node runs world_size / nodes of them)");
}

TEST(JobConfig, MuonLrWhenSetMustBeFiniteAndPositive) {
  auto error_of = [](double muon_lr) -> std::string {
    JobConfig c;
    c.optim.muon_lr = muon_lr;
    try {
      validate(c);
    } catch (const ConfigError& e) {
      return e.path() + " | " + e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_of(0.0), "optim.muon_lr | optim.muon_lr: must be finite and > 0 (or unset: optim.lr), got 0");
  EXPECT_EQ(error_of(-0.02), "optim.muon_lr | optim.muon_lr: must be finite and > 0 (or unset: optim.lr), got -0.02");
  EXPECT_EQ(error_of(std::numeric_limits<double>::infinity()),
            "optim.muon_lr | optim.muon_lr: must be finite and > 0 (or unset: optim.lr), got inf");
  EXPECT_EQ(error_of(std::nan("")), "optim.muon_lr | optim.muon_lr: must be finite and > 0 (or unset: optim.lr), got nan");
  EXPECT_EQ(error_of(0.02), "no error");
  EXPECT_NO_THROW(validate(JobConfig{}));  // unset
}

// The control arm `qknorm` is the baseline's scale vectors plus QK-norm: a sweep's job of it has model.qk_norm
// set by the variant, whatever the model preset says, and a config that names it without QK-norm is refused
// (it would be a second baseline under another name).
TEST(JobConfig, TheQkNormControlIsTheBaselineWithQkNorm) {
  const Sweep sweep = testing::expand(R"(
name: control
base: {model: {preset: tiny-2x16}, steps: 4}
axes:
  grid:
    scale.variant: [baseline, qknorm]
)");
  ASSERT_EQ(sweep.jobs.size(), 2u);
  const JobConfig& baseline = sweep.jobs[0].config;
  const JobConfig& control = sweep.jobs[1].config;
  EXPECT_EQ(control.scale.variant, "qknorm");
  EXPECT_FALSE(baseline.model.qk_norm);
  EXPECT_TRUE(control.model.qk_norm);
  ScaleSpec axes = control.scale;
  axes.variant = "baseline";
  EXPECT_EQ(to_json(axes), to_json(baseline.scale)) << "the same scale vectors as the baseline";
  JobConfig bad = control;
  bad.model.qk_norm = false;
  EXPECT_EQ(validation_error(bad), "model.qk_norm: must be true for scale.variant 'qknorm' (the baseline with QK-norm)");
  EXPECT_FALSE(testing::problems(R"(
name: control
base: {model: {preset: tiny-2x16, qk_norm: false}, scale: {variant: qknorm}, steps: 4}
)").empty());
}

// γ_fin is an Output-Norm by default (the paper's summary names the norm before the output as one): IWD and
// unified leave it undecayed unless scale.final_norm_is_input says otherwise.
TEST(JobConfig, TheFinalNormIsAnOutputNormByDefault) {
  EXPECT_FALSE(ScaleSpec{}.final_norm_is_input);
  EXPECT_FALSE(variant_preset("unified").final_norm_is_input);
  EXPECT_FALSE(variant_preset("iwd").final_norm_is_input);
}

// The 2026 arms (docs/variants.md, "The 2026 arms"): scale.norm and its fields are absent from a config that
// does not set them (configs written before them keep their bytes and hashes), round trip as their strings, and
// are refused with the field, the limit and the value where they do not apply.
TEST(JobConfig, TheArmsNormIsOptionalAndChecked) {
  const nlohmann::json plain = to_json(JobConfig{});
  EXPECT_FALSE(plain["scale"].contains("norm"));
  EXPECT_FALSE(plain["scale"].contains("gate_rank"));
  EXPECT_EQ(job_config_every_field()["scale"]["norm"], "rms") << "the sweep schema reads the field's kind";

  nlohmann::json json = plain;
  json["scale"]["norm"] = "derf";
  json["scale"]["norm_alpha_init"] = 0.8;
  json["scale"]["norm_shift_init"] = -0.25;
  const JobConfig derf = job_config_from_json(json);
  EXPECT_EQ(derf.scale.norm_kind(), NormKind::Derf);
  EXPECT_EQ(derf.scale.alpha_init(), 0.8);
  EXPECT_EQ(to_json(derf).dump(), json.dump());
  EXPECT_EQ(validation_error(derf), "no error");

  json["scale"]["norm"] = "dyn_tanh";
  try {
    job_config_from_json(json);
    FAIL() << "an unknown norm was accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.path(), "scale.norm");
    EXPECT_NE(std::string(e.what()).find("derf, dyt, gated, ln_scaling, peri_ln, pre_affine, rms, seednorm"),
              std::string::npos) << e.what();
  }

  JobConfig c;
  c.scale = variant_preset("dyt");
  c.scale.sharing = Sharing::Branch;
  EXPECT_EQ(validation_error(c),
            "scale.sharing: must be shared, got branch (scale.norm dyt replaces the Pre-Norm and keeps the baseline's "
            "scale vectors: sharing shared, placement before, param plain)");
  c.scale = variant_preset("seednorm");
  c.scale.placement = Placement::DualNorm;
  EXPECT_NE(validation_error(c).find("scale.placement: must be before, got dual_norm"), std::string::npos);
  c.scale = variant_preset("gated");
  c.scale.param = ScaleParam::MagDirExp;
  EXPECT_NE(validation_error(c).find("scale.param: must be plain, got magdir_exp"), std::string::npos);
  c.scale = variant_preset("gated");
  c.scale.gate_rank = 0;
  EXPECT_EQ(validation_error(c), "scale.gate_rank: must be in [1, " + std::to_string(limits::kMaxDModel) + "], got 0");
  c.scale = variant_preset("baseline");
  c.scale.gate_rank = 16;
  EXPECT_EQ(validation_error(c), "scale.gate_rank: is for scale.norm gated only (this norm is rms)");
  c.scale = variant_preset("dyt");
  c.scale.norm_alpha_init = std::numeric_limits<double>::infinity();
  EXPECT_EQ(validation_error(c), "scale.norm_alpha_init: must be in (0, 100], got inf");
  c.scale.norm_alpha_init = 0.5;
  c.scale.norm_shift_init = 1.0;
  EXPECT_EQ(validation_error(c), "scale.norm_shift_init: is for scale.norm derf only (this norm is dyt)");
  c.scale = variant_preset("seednorm");
  c.scale.norm_init_std = 0.0;
  EXPECT_EQ(validation_error(c), "scale.norm_init_std: must be in (0, 1], got 0");
  c.scale.norm_init_std = 0.01;
  EXPECT_EQ(validation_error(c), "no error");
}

}  // namespace
}  // namespace gammalab
