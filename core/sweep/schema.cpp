// The sweep schema: every settable field of a job by dot path, with its kind and its short names.
#include "core/sweep/schema.h"

#include <nlohmann/json.hpp>

#include "core/job_config.h"

namespace gammalab {

namespace {

FieldKind kind_of(const nlohmann::json& value) {
  if (value.is_object()) return FieldKind::kObject;
  if (value.is_boolean()) return FieldKind::kBool;
  if (value.is_number_integer() || value.is_number_unsigned()) return FieldKind::kInteger;
  if (value.is_number()) return FieldKind::kNumber;
  return FieldKind::kString;
}

std::string last_component(const std::string& path) {
  const auto dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

}  // namespace

bool is_numeric(FieldKind kind) { return kind == FieldKind::kInteger || kind == FieldKind::kNumber; }

const char* kind_description(FieldKind kind) {
  switch (kind) {
    case FieldKind::kBool: return "a boolean";
    case FieldKind::kInteger: return "an integer";
    case FieldKind::kNumber: return "a number";
    case FieldKind::kString: return "a string";
    case FieldKind::kObject: return "a mapping";
  }
  return "a value";
}

const SweepSchema& SweepSchema::instance() {
  static const SweepSchema schema;
  return schema;
}

SweepSchema::SweepSchema() {
  // nlohmann::json objects iterate in sorted key order; the order only affects suggestions and listings.
  auto walk = [&](auto& self, const nlohmann::json& object, const std::string& prefix) -> void {
    for (const auto& [key, value] : object.items()) {
      // A list (the command) is set by its own top-level key, never as a base field or an axis.
      if (value.is_array()) continue;
      const std::string path = prefix.empty() ? key : prefix + "." + key;
      kinds_[path] = kind_of(value);
      children_[prefix].push_back(key);
      if (value.is_object()) self(self, value, path);
      else leaves_.push_back(path);
    }
  };
  walk(walk, job_config_every_field(), "");
  for (const auto& path : job_config_optional_fields()) optional_.insert(path);
  kinds_["tokens"] = FieldKind::kInteger;  // the token budget; steps follows from it (docs/sweeps.md)
  children_[""].push_back("tokens");
  leaves_.push_back("tokens");

  std::map<std::string, int> uses;
  for (const auto& leaf : leaves_) ++uses[last_component(leaf)];
  for (const auto& leaf : leaves_) {
    if (!is_numeric(kinds_[leaf])) continue;
    name_to_path_[leaf] = leaf;
    if (uses[last_component(leaf)] == 1) name_to_path_[last_component(leaf)] = leaf;
  }
}

const FieldKind* SweepSchema::find(const std::string& path) const {
  auto it = kinds_.find(path);
  return it == kinds_.end() ? nullptr : &it->second;
}

std::vector<std::string> SweepSchema::children(const std::string& object_path) const {
  auto it = children_.find(object_path);
  return it == children_.end() ? std::vector<std::string>{} : it->second;
}

std::string SweepSchema::path_of_name(const std::string& name) const {
  auto it = name_to_path_.find(name);
  return it == name_to_path_.end() ? "" : it->second;
}

std::vector<std::string> SweepSchema::expression_names() const {
  std::vector<std::string> names;
  for (const auto& [name, path] : name_to_path_) names.push_back(name);
  return names;
}

std::string SweepSchema::short_name(const std::string& path) const {
  const std::string last = last_component(path);
  int uses = 0;
  for (const auto& leaf : leaves_) uses += last_component(leaf) == last ? 1 : 0;
  return uses == 1 ? last : path;
}

}  // namespace gammalab
