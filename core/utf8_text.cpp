// UTF-8 validation and cutting at character boundaries (see utf8_text.h). A hand-written decoder following
// the Unicode standard's table of well-formed byte sequences (table 3-7), the same rule protobuf applies.
#include "core/utf8_text.h"

namespace gammalab {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool is_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the well-formed sequence at text[i], or 0 if the byte there does not start one.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte, narrowed for some lead bytes
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates U+D800..U+DFFF
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // above U+10FFFF
  } else {
    return 0;  // a continuation byte, C0/C1 (overlong) or F5..FF
  }
  if (text.size() - i < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (!is_continuation(byte(k))) return 0;
  }
  return length;
}

}  // namespace

std::string utf8_valid(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (const std::size_t n = sequence_length(text, i); n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      out.append(kReplacement);
      ++i;
    }
  }
  return out;
}

std::optional<std::size_t> utf8_first_invalid(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

std::string utf8_head(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = sequence_length(text, i);
    const std::string_view piece = n > 0 ? text.substr(i, n) : kReplacement;
    if (out.size() + piece.size() > max_bytes) break;
    out.append(piece);
    i += n > 0 ? n : 1;
  }
  return out;
}

std::string utf8_tail(std::string_view text, std::size_t max_bytes) {
  std::size_t start = 0;
  while (start < text.size() && start < 3 && is_continuation(static_cast<unsigned char>(text[start]))) ++start;
  const std::string valid = utf8_valid(text.substr(start));
  if (valid.size() <= max_bytes) return valid;
  std::size_t from = valid.size() - max_bytes;
  while (from < valid.size() && is_continuation(static_cast<unsigned char>(valid[from]))) ++from;
  return valid.substr(from);
}

std::string utf8_without_controls(std::string_view text) {
  const auto byte = [&](std::size_t i) { return i < text.size() ? static_cast<unsigned char>(text[i]) : 0; };
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = byte(i);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) continue;
    // C1 controls U+0080..U+009F are C2 80..C2 9F in UTF-8.
    if (c == 0xC2 && byte(i + 1) >= 0x80 && byte(i + 1) <= 0x9F) {
      ++i;
      continue;
    }
    // U+202A..U+202E are E2 80 AA..AE; U+2066..U+2069 are E2 81 A6..A9.
    if (c == 0xE2 && ((byte(i + 1) == 0x80 && byte(i + 2) >= 0xAA && byte(i + 2) <= 0xAE) ||
                      (byte(i + 1) == 0x81 && byte(i + 2) >= 0xA6 && byte(i + 2) <= 0xA9))) {
      i += 2;
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace gammalab
