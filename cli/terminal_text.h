#pragma once
// Text from the coordinator (sweep, job and worker names, errors, logs) is written by whoever submitted the
// sweep or ran the trainer. Printed as is, an escape sequence in it would move the cursor, rewrite what the
// terminal shows, retitle the window or worse. Everything the CLI prints that came from the server passes
// through terminal_text first: the table renderer for every cell, the commands for the rest.
#include <string>
#include <string_view>

namespace gammalab::cli {

// `text` as valid UTF-8 (invalid bytes become U+FFFD) without control characters: C0 (U+0000..U+001F, ESC
// among them) except tab and newline, DEL (U+007F) and C1 (U+0080..U+009F, which some terminals take as
// 8-bit escapes, CSI among them), and without bidirectional overrides and isolates (a name that would print
// in another order than it reads); core/utf8_text.h's utf8_without_controls. What remains of an escape
// sequence is plain text, e.g. "[2J".
std::string terminal_text(std::string_view text);

}  // namespace gammalab::cli
