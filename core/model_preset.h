#pragma once
// Model presets (configs/models/NAME.yaml) and scale-vector variant presets (docs/variants.md, Variants), by name.
#include <filesystem>
#include <string>
#include <vector>

#include "core/job_config.h"

namespace gammalab {

// Reads configs/models/NAME.yaml (keys: the fields of ModelSpec). Throws ConfigError naming the file and field.
ModelSpec load_model_preset(const std::string& name, const std::filesystem::path& dir);
std::vector<std::string> list_model_presets(const std::filesystem::path& dir);

// none, baseline, hg, ap, dp, dnp, or, er, iwd, unified. Throws ConfigError for an unknown name.
ScaleSpec variant_preset(const std::string& name);
std::vector<std::string> variant_names();

}  // namespace gammalab
