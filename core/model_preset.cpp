#include "core/model_preset.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>

#include "core/config_error.h"
#include "core/yaml_json.h"

namespace gammalab {

ModelSpec load_model_preset(const std::string& name, const std::filesystem::path& dir) {
  const auto file = dir / (name + ".yaml");
  if (!std::filesystem::exists(file)) {
    std::string known;
    for (const auto& n : list_model_presets(dir)) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("model.preset", "unknown model preset '" + name + "' (known: " + known + ")");
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

ScaleSpec variant_preset(const std::string& name) {
  // name -> sharing, placement, param, decay (spec §2).
  static const std::map<std::string, std::array<const char*, 4>> presets = {
      {"none", {"none", "before", "plain", "none"}},
      {"baseline", {"shared", "before", "plain", "none"}},
      {"hg", {"branch", "before", "plain", "none"}},
      {"ap", {"shared", "after", "plain", "none"}},
      {"dp", {"shared", "dual", "plain", "none"}},
      {"dnp", {"shared", "dual_norm", "plain", "none"}},
      {"or", {"shared", "before", "magdir_orig", "none"}},
      {"er", {"shared", "before", "magdir_exp", "none"}},
      {"iwd", {"shared", "before", "plain", "input_only"}},
      {"unified", {"branch", "dual_norm", "magdir_orig", "input_only"}},
  };
  auto it = presets.find(name);
  if (it == presets.end()) {
    std::string known;
    for (const auto& n : variant_names()) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("scale.variant", "unknown variant '" + name + "' (known: " + known + ")");
  }
  ScaleSpec s;
  s.variant = name;
  s.sharing = it->second[0];
  s.placement = it->second[1];
  s.param = it->second[2];
  s.decay = it->second[3];
  return s;
}

std::vector<std::string> variant_names() {
  return {"none", "baseline", "hg", "ap", "dp", "dnp", "or", "er", "iwd", "unified"};
}

}  // namespace gammalab
