#include "core/config_paths.h"

#include <cstdlib>

namespace gammalab {

std::filesystem::path config_root() {
  if (const char* env = std::getenv("GAMMALAB_CONFIGS"); env != nullptr && *env != '\0') return env;
  return GAMMALAB_DEFAULT_CONFIG_DIR;
}

std::filesystem::path model_preset_dir() { return config_root() / "models"; }

}  // namespace gammalab
