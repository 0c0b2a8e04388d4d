#pragma once
// A resolved job config's fields by dot path (e.g. "optim.lr", "scale.variant"): read for grouping runs
// (scaling-law fits, tune groups), set for the values a tune stage picks.
#include <string>

#include <nlohmann/json.hpp>

#include "core/job_config.h"

namespace gammalab {

// The field's value as the config's JSON spells it. Throws ConfigError naming the path if there is no such
// field.
nlohmann::json config_field(const JobConfig& config, const std::string& dot_path);

// The field as text: a string as is, anything else as its JSON.
std::string config_field_text(const JobConfig& config, const std::string& dot_path);

// A copy of the config with the field set, validated as any config is (ConfigError names the field).
JobConfig with_config_field(const JobConfig& config, const std::string& dot_path, const nlohmann::json& value);

}  // namespace gammalab
