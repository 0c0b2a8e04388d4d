// Where shipped files live at run time (core/config_paths.h).
#include "core/config_paths.h"

#include <cstdlib>
#include <system_error>

namespace gammalab {

std::filesystem::path shipped_files_root() {
  // Asked once: the binary does not move while it runs. /proc/self/exe names the binary itself, whatever the
  // working directory or the name it was started by (a symlink in PATH resolves to the file).
  static const std::filesystem::path root = [] {
    std::error_code error;
    const std::filesystem::path binary = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
      // GAMMALAB_INSTALL_SHARE_FROM_BIN: share/gammalab as seen from bin/ ("../share/gammalab"), set by CMake from
      // the install layout (cmake/install.cmake).
      const std::filesystem::path installed =
          (binary.parent_path() / GAMMALAB_INSTALL_SHARE_FROM_BIN).lexically_normal();
      if (std::filesystem::is_directory(installed / "configs", error)) return installed;
    }
    return std::filesystem::path(GAMMALAB_SOURCE_ROOT);
  }();
  return root;
}

std::filesystem::path config_root() {
  if (const char* env = std::getenv("GAMMALAB_CONFIGS"); env != nullptr && *env != '\0') return env;
  return shipped_files_root() / "configs";
}

std::filesystem::path model_preset_dir() { return config_root() / "models"; }

std::filesystem::path variant_presets_file() {
  // A $GAMMALAB_CONFIGS of the user's own model presets need not copy the variants, which are the product's.
  const std::filesystem::path own = config_root() / "variants.yaml";
  std::error_code error;
  return std::filesystem::exists(own, error) ? own : shipped_files_root() / "configs" / "variants.yaml";
}

std::filesystem::path dashboard_files_dir() { return shipped_files_root() / "web"; }

}  // namespace gammalab
