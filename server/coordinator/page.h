#pragma once
// One page cursor and one set of page limits for every list the coordinator answers (server/coordinator/
// coordinator.h), whichever door the request came through: sweeps, jobs, runs and workers by rows, metric
// points by points, fits by versions. Each page also ends before its encoded size passes
// limits::kMaxReplyBytes, after at least one entry, so that no reply grows with what is stored.
//
// A page token is the position where the previous page ended, decimal numbers joined by ':', the last part
// optionally text (a metric name, which may itself hold ':'): "ID", "ORDINAL", "VERSION", "JOB:STEP:NAME".
// A token is the client's and so hostile: only one of the list's shape, within its bounds, is taken.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/limits.h"

namespace gammalab::coordinator {

struct PageLimits {
  int default_size;  // a request's size 0 means this
  int max_size;
};
inline constexpr PageLimits kRowPages{limits::kDefaultPageSize, limits::kMaxPageSize};
inline constexpr PageLimits kPointPages{limits::kDefaultMetricPageSize, limits::kMaxMetricPageSize};
inline constexpr PageLimits kVersionPages{limits::kDefaultFitPageSize, limits::kMaxFitPageSize};

// A page as a request asks for it: how many entries (0: the list's default) after the position of `token`
// (empty: from the start).
struct PageRequest {
  std::int64_t size = 0;
  std::string token;
};

// The entries of one page and the token of the next (empty on the last page).
template <typename T>
struct Page {
  std::vector<T> items;
  std::string next_token;
};

// A position: `numbers`, then `text` when the list's positions have one.
struct PageCursor {
  std::vector<std::int64_t> numbers;
  std::optional<std::string> text;

  std::string token() const;
};

// The shape a list's tokens have: how many numbers, each at least `min_number`, and whether text follows
// (at most limits::kMaxKeyBytes of it).
struct CursorShape {
  std::size_t numbers = 1;
  std::int64_t min_number = 0;
  bool text = false;
};

// The size a request asks for within `limits`, or INVALID_ARGUMENT "page_size: V is outside 0..MAX".
absl::StatusOr<std::size_t> page_size(std::int64_t size, const PageLimits& limits);
// The position a token names (nullopt for an empty token), or INVALID_ARGUMENT
// "page_token: 'T' is not a token from a previous page" for one not of `shape`.
absl::StatusOr<std::optional<PageCursor>> page_cursor(std::string_view token, const CursorShape& shape);
// The same refusal, for a token of the right shape whose position the list cannot have (a job index past
// the request's jobs, say).
absl::Status foreign_token(std::string_view token);

}  // namespace gammalab::coordinator
