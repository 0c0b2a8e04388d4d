// Control characters removed from printed text (see terminal_text.h).
#include "cli/terminal_text.h"

#include "core/utf8_text.h"

namespace gammalab::cli {

std::string terminal_text(std::string_view text) { return utf8_without_controls(utf8_valid(text)); }

}  // namespace gammalab::cli
