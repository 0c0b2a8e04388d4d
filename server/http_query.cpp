#include "server/http_query.h"

#include <absl/strings/str_split.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "core/metric_downsample.h"
#include "core/utf8_text.h"

namespace gammalab::http_query {

absl::StatusOr<std::int64_t> int_param(const HttpRequest& req, const char* name, std::int64_t lo, std::int64_t hi,
                                       std::int64_t fallback) {
  if (!req.has_param(name)) return fallback;
  const std::string text = req.param(name);
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < lo || value > hi) {
    const std::string range = hi == std::numeric_limits<std::int64_t>::max()
                                  ? ">= " + std::to_string(lo)
                                  : "from " + std::to_string(lo) + " to " + std::to_string(hi);
    return absl::InvalidArgumentError(std::string(name) + ": expected an integer " + range + ", got '" +
                                      utf8_head(text, 64) + "'");
  }
  return value;
}

absl::StatusOr<coordinator::Coordinator::SeriesQuery> series_query(const HttpRequest& req,
                                                                   std::size_t max_full_points) {
  constexpr auto kNoLimit = std::numeric_limits<std::int64_t>::max();
  const absl::StatusOr<std::int64_t> after = int_param(req, "after_step", -1, kNoLimit, -1);
  if (!after.ok()) return after.status();
  const absl::StatusOr<std::int64_t> from = int_param(req, "from_step", 0, kNoLimit, 0);
  if (!from.ok()) return from.status();
  const absl::StatusOr<std::int64_t> to = int_param(req, "to_step", 0, kNoLimit, kNoLimit);
  if (!to.ok()) return to.status();
  if (req.has_param("from_step") && *to < *from) {
    return absl::InvalidArgumentError("to_step: expected at least from_step (" + std::to_string(*from) +
                                      "), got " + std::to_string(*to));
  }
  // Four points per bucket (first, last, lowest, highest): max_points / 4 buckets.
  const absl::StatusOr<std::int64_t> max_points =
      int_param(req, "max_points", 4 * kMinDownsampleBuckets, 4 * kMaxDownsampleBuckets, 0);
  if (!max_points.ok()) return max_points.status();
  coordinator::Coordinator::SeriesQuery q;
  q.range.after_step = std::max(*after, *from - 1);
  q.range.to_step = *to;
  q.buckets = static_cast<std::size_t>(*max_points / 4);
  q.max_points = max_full_points;
  q.names = absl::StrSplit(req.param("names"), ',', absl::SkipEmpty());  // no names: every metric
  return q;
}

absl::StatusOr<ListRequest> list_request(const HttpRequest& req) {
  const absl::StatusOr<std::int64_t> size = int_param(req, "page_size", std::numeric_limits<std::int64_t>::min(),
                                                      std::numeric_limits<std::int64_t>::max(), 0);
  if (!size.ok()) return size.status();
  ListRequest out;
  out.paged = req.has_param("page_size") || req.has_param("page_token");
  out.page.size = *size;
  out.page.token = req.param("page_token");
  return out;
}

}  // namespace gammalab::http_query
