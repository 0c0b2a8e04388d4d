#pragma once
// Model presets (configs/models/NAME.yaml) and scale-vector variant presets (configs/variants.yaml; docs/variants.md,
// Variants), by name.
#include <filesystem>
#include <string>
#include <vector>

#include "core/job_config.h"

namespace gammalab {

// Reads configs/models/NAME.yaml (keys: the fields of ModelSpec). Throws ConfigError naming the file and field.
ModelSpec load_model_preset(const std::string& name, const std::filesystem::path& dir);
std::vector<std::string> list_model_presets(const std::filesystem::path& dir);

// A named variant as configs/variants.yaml gives it: its four scale axes, whether it turns the model's QK-norm on
// (a control arm), and the paper section it comes from.
struct VariantPreset {
  std::string name;
  ScaleSpec scale;  // scale.variant = name
  bool qk_norm = false;
  std::string paper;
};
// Every variant, in the file's order (none, baseline, hg, ap, dp, dnp, or, er, iwd, unified, and the control
// qknorm). Read once from variant_presets_file(); throws ConfigError naming the file and field if it is wrong.
const std::vector<VariantPreset>& variant_presets();
// One such file, in its order (what variant_presets() reads once).
std::vector<VariantPreset> read_variant_presets(const std::filesystem::path& file);

// Throws ConfigError for an unknown name.
ScaleSpec variant_preset(const std::string& name);
std::vector<std::string> variant_names();

// The control arm a reviewer asks for first: the baseline's scale vectors plus QK-norm (model.qk_norm: true), a
// known stabiliser that normalises q and k as unified's DNP does. Its scale axes are the baseline's; the model
// switch is what sets it apart, so a config of this variant must have model.qk_norm (validate() checks).
inline constexpr const char* kQkNormControl = "qknorm";
// The variant's presets turn model.qk_norm on (the control above); false for an unknown name.
bool variant_sets_qk_norm(const std::string& variant);

}  // namespace gammalab
