// The dashboard's files by shape (see dashboard_files.h).
#include "server/dashboard_files.h"

#include <initializer_list>

namespace gammalab {

namespace {

// NAME.EXT with NAME of letters, digits, '-', '_' and dots that are neither first nor doubled, and EXT one of
// `extensions`.
bool is_file_name(std::string_view name, std::initializer_list<std::string_view> extensions) {
  if (name.empty() || name.front() == '.' || name.find("..") != std::string_view::npos) return false;
  for (char c : name) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && c != '-' && c != '_' && c != '.') return false;
  }
  for (std::string_view ext : extensions) {
    if (name.size() > ext.size() + 1 && name.ends_with(ext) && name[name.size() - ext.size() - 1] == '.') {
      return true;
    }
  }
  return false;
}

}  // namespace

bool is_dashboard_file(std::string_view path) {
  if (path == "/") return true;
  constexpr std::string_view kUPlot = "/vendor/uplot/";
  if (path.starts_with(kUPlot)) return is_file_name(path.substr(kUPlot.size()), {"js", "css"});
  return path.starts_with('/') && is_file_name(path.substr(1), {"html", "js", "css"});
}

}  // namespace gammalab
