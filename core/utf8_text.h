#pragma once
// Text that goes into a protobuf `string` field must be valid UTF-8: the receiver refuses the whole message
// otherwise. Logs and error texts are not: a trainer may print any bytes, and a cut at a byte count can split
// a character in two. These functions are the one way gammalab cuts text and makes it valid; every other
// place that shortens text for a message (the worker's error tail, the coordinator's log tail and stored
// errors) calls them.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gammalab {

// `text` with each byte that is not part of a well-formed UTF-8 sequence (a stray continuation byte, a lead
// byte without its continuation, an overlong form, a surrogate, a code point above U+10FFFF) replaced by
// U+FFFD. Valid text comes back unchanged.
std::string utf8_valid(std::string_view text);

// The offset of the first byte of `text` that is not part of a well-formed UTF-8 sequence (what utf8_valid
// would replace); nullopt when `text` is valid UTF-8.
std::optional<std::size_t> utf8_first_invalid(std::string_view text);

// Valid UTF-8 of at most `max_bytes` bytes: the start of utf8_valid(text), cut before the first character
// that does not fit whole.
std::string utf8_head(std::string_view text, std::size_t max_bytes);

// Valid UTF-8 of at most `max_bytes` bytes: the end of utf8_valid(text), from the first whole character that
// fits. `text` may itself start inside a character (the end of a file read from a byte offset): up to three
// leading continuation bytes are the rest of a character cut off before it and are dropped, not replaced.
std::string utf8_tail(std::string_view text, std::size_t max_bytes);

// Valid UTF-8 `text` without its control characters (C0 but tab and newline, DEL, C1) and without the
// bidirectional embeddings, overrides and isolates (U+202A..U+202E, U+2066..U+2069): what a page or a
// terminal may show of a log or a name without escape sequences or carriage returns rewriting what is around
// it, and without text that displays in another order than it reads ("Trojan Source"). Never longer.
std::string utf8_without_controls(std::string_view text);

}  // namespace gammalab
