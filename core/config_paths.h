#pragma once
// Where the configs/ tree (model presets, sweep examples) lives at run time.
#include <filesystem>

namespace gammalab {

// $GAMMALAB_CONFIGS if set, else the configs/ directory of the source tree this binary was built from.
std::filesystem::path config_root();

// config_root()/models: one YAML file per model preset.
std::filesystem::path model_preset_dir();

}  // namespace gammalab
