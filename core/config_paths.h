#pragma once
// Where the files gammalab ships beside its binaries live at run time: the configs/ tree (model presets, sweep
// examples) and the dashboard's web/ files. One layout in both places a binary runs from:
//   installed:    PREFIX/bin/BINARY with PREFIX/share/gammalab/{configs,web}   (cmake --install, the packages)
//   source build: a build tree's binary with the source tree's configs/ and web/ (compiled in)
#include <filesystem>

namespace gammalab {

// PREFIX/share/gammalab when this binary runs from an installed layout (it holds configs/), else the source
// tree this binary was built from.
std::filesystem::path shipped_files_root();

// $GAMMALAB_CONFIGS if set, else shipped_files_root()/configs.
std::filesystem::path config_root();

// config_root()/models: one YAML file per model preset.
std::filesystem::path model_preset_dir();

// config_root()/variants.yaml, else the shipped one: the named scale-vector variants.
std::filesystem::path variant_presets_file();

// shipped_files_root()/web: the dashboard's files (the server's and `gammalab report`'s default --web-root).
std::filesystem::path dashboard_files_dir();

}  // namespace gammalab
