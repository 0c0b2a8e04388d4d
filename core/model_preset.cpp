#include "core/model_preset.h"

#include <absl/strings/str_join.h>

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "core/config_error.h"
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

namespace {

// What each variant sets (docs/variants.md, Variants): its four scale axes, and for a control arm the model switch
// that sets it apart from the baseline.
struct VariantAxes {
  Sharing sharing;
  Placement placement;
  ScaleParam param;
  ScaleDecay decay;
  bool qk_norm = false;
};

const VariantAxes* find_variant(const std::string& name) {
  using enum Sharing;
  using enum Placement;
  using enum ScaleParam;
  static const std::map<std::string, VariantAxes> presets = {
      {"none", {None, Before, Plain, ScaleDecay::None}},
      {"baseline", {Shared, Before, Plain, ScaleDecay::None}},
      {"hg", {Branch, Before, Plain, ScaleDecay::None}},
      {"ap", {Shared, After, Plain, ScaleDecay::None}},
      {"dp", {Shared, Dual, Plain, ScaleDecay::None}},
      {"dnp", {Shared, DualNorm, Plain, ScaleDecay::None}},
      {"or", {Shared, Before, MagDirOrig, ScaleDecay::None}},
      {"er", {Shared, Before, MagDirExp, ScaleDecay::None}},
      {"iwd", {Shared, Before, Plain, ScaleDecay::InputOnly}},
      {"unified", {Branch, DualNorm, MagDirOrig, ScaleDecay::InputOnly}},
      {kQkNormControl, {Shared, Before, Plain, ScaleDecay::None, /*qk_norm=*/true}},
  };
  const auto it = presets.find(name);
  return it == presets.end() ? nullptr : &it->second;
}

}  // namespace

ScaleSpec variant_preset(const std::string& name) {
  const VariantAxes* axes = find_variant(name);
  if (axes == nullptr) {
    throw ConfigError("scale.variant", "unknown variant '" + name + "' (known: " + absl::StrJoin(variant_names(), ", ") + ")");
  }
  ScaleSpec s;
  s.variant = name;
  s.sharing = axes->sharing;
  s.placement = axes->placement;
  s.param = axes->param;
  s.decay = axes->decay;
  return s;
}

bool variant_sets_qk_norm(const std::string& variant) {
  const VariantAxes* axes = find_variant(variant);
  return axes != nullptr && axes->qk_norm;
}

std::vector<std::string> variant_names() {
  return {"none", "baseline", "hg", "ap", "dp", "dnp", "or", "er", "iwd", "unified", kQkNormControl};
}

}  // namespace gammalab
