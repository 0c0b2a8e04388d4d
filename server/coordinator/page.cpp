// The page cursor and limits (server/coordinator/page.h).
#include "server/coordinator/page.h"

#include <absl/strings/numbers.h>
#include <absl/strings/str_join.h>
#include <absl/strings/str_split.h>

#include "core/utf8_text.h"

namespace gammalab::coordinator {

std::string PageCursor::token() const {
  std::string out = absl::StrJoin(numbers, ":");
  if (text) out += ":" + *text;
  return out;
}

absl::StatusOr<std::size_t> page_size(std::int64_t size, const PageLimits& limits) {
  if (size < 0 || size > limits.max_size) {
    return absl::InvalidArgumentError("page_size: " + std::to_string(size) + " is outside 0.." +
                                      std::to_string(limits.max_size));
  }
  return static_cast<std::size_t>(size == 0 ? limits.default_size : size);
}

absl::Status foreign_token(std::string_view token) {
  return absl::InvalidArgumentError("page_token: '" + utf8_head(token, 64) + "' is not a token from a previous page");
}

absl::StatusOr<std::optional<PageCursor>> page_cursor(std::string_view token, const CursorShape& shape) {
  if (token.empty()) return std::optional<PageCursor>();
  const std::size_t parts_wanted = shape.numbers + (shape.text ? 1 : 0);
  // The text comes last and may hold ':', so the split stops before it.
  const absl::string_view text(token.data(), token.size());
  const std::vector<absl::string_view> parts =
      absl::StrSplit(text, absl::MaxSplits(':', static_cast<int>(parts_wanted) - 1));
  if (parts.size() != parts_wanted) return foreign_token(token);
  PageCursor cursor;
  for (std::size_t i = 0; i < shape.numbers; ++i) {
    std::int64_t n = 0;
    if (!absl::SimpleAtoi(parts[i], &n) || n < shape.min_number) return foreign_token(token);
    cursor.numbers.push_back(n);
  }
  if (shape.text) {
    if (parts.back().size() > limits::kMaxKeyBytes) return foreign_token(token);
    cursor.text = std::string(parts.back());
  }
  return std::optional<PageCursor>(std::move(cursor));
}

}  // namespace gammalab::coordinator
