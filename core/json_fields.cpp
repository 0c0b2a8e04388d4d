#include "core/json_fields.h"

namespace gammalab {

namespace {
const nlohmann::json kEmptyObject = nlohmann::json::object();
}

JsonFields::JsonFields(const nlohmann::json& object, std::string path) : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) throw ConfigError(path_, std::string("expected an object, got ") + object_.type_name());
}

const nlohmann::json& JsonFields::object(const char* key) {
  seen_.insert(key);
  auto it = object_.find(key);
  if (it == object_.end()) return kEmptyObject;
  if (!it->is_object()) throw ConfigError(child_path(key), std::string("expected an object, got ") + it->type_name());
  return *it;
}

const nlohmann::json* JsonFields::any(const char* key) {
  seen_.insert(key);
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

void JsonFields::reject_unknown() const {
  for (const auto& [key, value] : object_.items()) {
    if (!seen_.contains(key)) throw ConfigError(child_path(key), "unknown key");
  }
}

}  // namespace gammalab
