#include "core/data_path.h"

#include <absl/strings/str_cat.h>

#include <filesystem>

#include "core/config_error.h"
#include "core/job_config.h"
#include "core/utf8_text.h"

namespace gammalab {

std::string data_path_error(std::string_view path) {
  const auto shown = [&] { return absl::StrCat("'", utf8_head(path, 128), path.size() > 128 ? "...'" : "'"); };
  if (path.size() > kMaxDataPathBytes) {
    return absl::StrCat("is ", path.size(), " bytes long, over the limit of ", kMaxDataPathBytes);
  }
  if (path.find('\0') != std::string_view::npos) return "holds a NUL character";
  const std::filesystem::path p{std::string(path)};
  if (p.has_root_path()) {
    return absl::StrCat(shown(), " is absolute: data paths are relative to the worker's data directory");
  }
  for (const auto& part : p) {
    if (part == "..") return absl::StrCat(shown(), " climbs out of the data directory with '..'");
  }
  return "";
}

void check_data_paths(const JobConfig& config) {
  const struct {
    const char* field;
    const std::string& value;
  } paths[] = {{"data.train", config.data.train}, {"data.val", config.data.val}};
  for (const auto& [field, value] : paths) {
    if (value.empty()) continue;
    if (const std::string error = data_path_error(value); !error.empty()) throw ConfigError(field, error);
  }
}

}  // namespace gammalab
