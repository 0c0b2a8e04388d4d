#pragma once
// YAML → JSON, so YAML documents can be read with the same strict JSON field readers.
// Scalars become numbers or booleans where YAML 1.2 core schema says so, strings otherwise.
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

namespace gammalab {

nlohmann::json yaml_to_json(const YAML::Node& node);

}  // namespace gammalab
