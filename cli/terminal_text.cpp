// Control characters removed from printed text (see terminal_text.h).
#include "cli/terminal_text.h"

#include "core/utf8_text.h"

namespace gammalab::cli {

std::string terminal_text(std::string_view text) {
  const std::string valid = utf8_valid(text);
  std::string out;
  out.reserve(valid.size());
  for (std::size_t i = 0; i < valid.size(); ++i) {
    const auto c = static_cast<unsigned char>(valid[i]);
    if (c < 0x20 && c != '\n' && c != '\t') continue;
    if (c == 0x7F) continue;
    // C1 in UTF-8 is 0xC2 followed by 0x80..0x9F (valid is well-formed, so a 0xC2 has its second byte).
    if (c == 0xC2 && static_cast<unsigned char>(valid[i + 1]) <= 0x9F) {
      ++i;
      continue;
    }
    out.push_back(static_cast<char>(c));
  }
  return out;
}

}  // namespace gammalab::cli
