#pragma once
// A uid: 16 random bytes written as 32 lowercase hex characters. Jobs and databases carry one that, unlike a row
// id, never comes round again (docs/deploy.md, "Identity"); each hop that receives one checks its form with
// is_uid before it writes or compares it.
#include <cstddef>
#include <string_view>

namespace gammalab {

inline constexpr std::size_t kUidBytes = 16;

inline bool is_uid(std::string_view text) {
  if (text.size() != kUidBytes * 2) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace gammalab
