#include "core/saved_view.h"

#include <algorithm>
#include <stdexcept>

#include "core/utf8_text.h"

namespace gammalab {

void check_saved_view(const std::string& name, const std::string& settings) {
  using namespace view_limits;
  if (name.empty() || name.size() > kNameBytes) {
    throw std::invalid_argument("name: 1 to " + std::to_string(kNameBytes) + " bytes, got " +
                                std::to_string(name.size()));
  }
  if (utf8_first_invalid(name) || utf8_without_controls(name) != name || name.find_first_of("\n\t") != std::string::npos) {
    throw std::invalid_argument("name: UTF-8 on one line, without control characters");
  }
  if (settings.size() > kSettingsBytes) {
    throw std::invalid_argument("settings: at most " + std::to_string(kSettingsBytes) + " bytes, got " +
                                std::to_string(settings.size()));
  }
  // What a page's address holds after '?': percent-encoded, so printable ASCII only; a '#' would start another
  // address and a space is never written.
  const auto bad = std::find_if(settings.begin(), settings.end(), [](char c) { return c <= ' ' || c > '~' || c == '#'; });
  if (bad != settings.end()) {
    throw std::invalid_argument("settings: an address's query (percent-encoded, without '#' or spaces); byte " +
                                std::to_string(bad - settings.begin()) + " is not");
  }
}

}  // namespace gammalab
