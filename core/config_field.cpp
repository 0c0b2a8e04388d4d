#include "core/config_field.h"

#include <absl/strings/str_split.h>

#include "core/config_error.h"

namespace gammalab {

namespace {

// The node at the path inside `root`, or nullptr.
template <typename Json>
Json* find(Json& root, const std::string& dot_path) {
  Json* node = &root;
  for (const absl::string_view part : absl::StrSplit(dot_path, '.')) {
    const std::string key(part);
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
  }
  return node;
}

}  // namespace

nlohmann::json config_field(const JobConfig& config, const std::string& dot_path) {
  const nlohmann::json json = to_json(config);
  const nlohmann::json* node = find(json, dot_path);
  if (node == nullptr) throw ConfigError(dot_path, "no such config field");
  return *node;
}

std::string config_field_text(const JobConfig& config, const std::string& dot_path) {
  const nlohmann::json value = config_field(config, dot_path);
  return value.is_string() ? value.get<std::string>() : value.dump();
}

JobConfig with_config_field(const JobConfig& config, const std::string& dot_path, const nlohmann::json& value) {
  nlohmann::json json = to_json(config);
  nlohmann::json* node = find(json, dot_path);
  if (node == nullptr) throw ConfigError(dot_path, "no such config field");
  *node = value;
  JobConfig out = job_config_from_json(json);
  validate(out);  // a tune pick or a widened grid must not make a config no file could
  return out;
}

}  // namespace gammalab
