#include "core/model_preset.h"

#include <absl/strings/str_join.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>

#include "core/config_error.h"
#include "core/config_paths.h"
#include "core/yaml_json.h"

namespace gammalab {

ModelSpec load_model_preset(const std::string& name, const std::filesystem::path& dir) {
  const auto file = dir / (name + ".yaml");
  if (!std::filesystem::exists(file)) {
    throw ConfigError("model.preset", "unknown model preset '" + name + "' (known: " +
                                          absl::StrJoin(list_model_presets(dir), ", ") + ")");
  }
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError(file.string(), e.what());
  }
  nlohmann::json json = yaml_to_json(root);
  if (json.is_object()) json.erase("description");  // free text for people
  try {
    ModelSpec model = model_spec_from_json(json, "");
    model.preset = name;
    return model;
  } catch (const ConfigError& e) {
    throw ConfigError(file.string() + ": " + e.path(), e.what());
  }
}

std::vector<std::string> list_model_presets(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  if (!std::filesystem::is_directory(dir)) return names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Each entry: the four scale axes (all four required, read as a ScaleSpec so that a wrong value is named as any
// config's would be), optionally qk_norm, and the paper section.
std::vector<VariantPreset> read_variant_presets(const std::filesystem::path& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw ConfigError(file.string(), e.what());
  }
  if (!root.IsMap()) throw ConfigError(file.string(), "expected a map from variant names to their axes");
  std::vector<VariantPreset> presets;
  for (const auto& entry : root) {
    VariantPreset preset;
    preset.name = entry.first.as<std::string>();
    const std::string where = file.string() + ": " + preset.name;
    nlohmann::json axes = yaml_to_json(entry.second);
    if (!axes.is_object()) throw ConfigError(where, "expected a map of the variant's axes");
    for (const char* axis : {"sharing", "placement", "param", "decay"}) {
      if (!axes.contains(axis)) throw ConfigError(where + "." + axis, "missing: every variant sets all four axes");
    }
    if (axes.contains("qk_norm")) {
      if (!axes["qk_norm"].is_boolean()) throw ConfigError(where + ".qk_norm", "expected true or false");
      preset.qk_norm = axes["qk_norm"].get<bool>();
      axes.erase("qk_norm");
    }
    if (axes.contains("paper")) {
      if (!axes["paper"].is_string()) throw ConfigError(where + ".paper", "expected text");
      preset.paper = axes["paper"].get<std::string>();
      axes.erase("paper");
    }
    preset.scale = scale_spec_from_json(axes, where);
    preset.scale.variant = preset.name;
    presets.push_back(std::move(preset));
  }
  return presets;
}

namespace {

const VariantPreset* find_variant(const std::string& name) {
  for (const VariantPreset& preset : variant_presets()) {
    if (preset.name == name) return &preset;
  }
  return nullptr;
}

}  // namespace

const std::vector<VariantPreset>& variant_presets() {
  // Read once per process; a failed read throws and is tried again at the next call.
  static const std::vector<VariantPreset> presets = read_variant_presets(variant_presets_file());
  return presets;
}

ScaleSpec variant_preset(const std::string& name) {
  const VariantPreset* preset = find_variant(name);
  if (preset == nullptr) {
    throw ConfigError("scale.variant", "unknown variant '" + name + "' (known: " + absl::StrJoin(variant_names(), ", ") + ")");
  }
  return preset->scale;
}

bool variant_sets_qk_norm(const std::string& variant) {
  const VariantPreset* preset = find_variant(variant);
  return preset != nullptr && preset->qk_norm;
}

std::vector<std::string> variant_names() {
  std::vector<std::string> names;
  for (const VariantPreset& preset : variant_presets()) names.push_back(preset.name);
  return names;
}

}  // namespace gammalab
