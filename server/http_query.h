#pragma once
// What an HTTP API request asks for, read from its query string: each refusal an InvalidArgument status (a 400,
// server/http_replies.h) naming the parameter, its limits and the value sent, never an exception.
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include <absl/status/statusor.h>

#include "http/http_server.h"
#include "server/coordinator/coordinator.h"
#include "server/coordinator/page.h"

namespace gammalab::http_query {

// An integer query parameter in [lo, hi], or `fallback` when absent: digits with an optional leading '-',
// nothing else (no space, '+', exponent or trailing text).
absl::StatusOr<std::int64_t> int_param(const HttpRequest& req, const char* name, std::int64_t lo, std::int64_t hi,
                                       std::int64_t fallback);

// Which points of each series a metrics request wants: steps after `after_step` (the live append) and within
// [from_step, to_step] (a zoomed chart), at most `max_points` per series (absent: all of them, at most
// `max_full_points` in all), downsampled by core/metric_downsample.h.
absl::StatusOr<coordinator::Coordinator::SeriesQuery> series_query(const HttpRequest& req,
                                                                   std::size_t max_full_points);

// A list route's page: ?page_size and ?page_token, as the gRPC lists take them (server/coordinator/page.h);
// without either, the whole list, which the dashboard's tables show (read a page at a time all the same).
struct ListRequest {
  bool paged = false;
  coordinator::PageRequest page;
};
absl::StatusOr<ListRequest> list_request(const HttpRequest& req);

// The rows of a list request: one page, its next token in the X-Next-Page-Token header, or every page.
template <typename Row, typename Read>
absl::StatusOr<std::vector<Row>> list_rows(const HttpRequest& req, HttpResponse& res, Read read) {
  const absl::StatusOr<ListRequest> request = list_request(req);
  if (!request.ok()) return request.status();
  coordinator::PageRequest page = request->page;
  std::vector<Row> rows;
  do {
    absl::StatusOr<coordinator::Page<Row>> one = read(page);
    if (!one.ok()) return one.status();
    std::move(one->items.begin(), one->items.end(), std::back_inserter(rows));
    page.token = std::move(one->next_token);
    if (request->paged) {
      if (!page.token.empty()) res.set_header("X-Next-Page-Token", page.token);
      break;
    }
  } while (!page.token.empty());
  return rows;
}

}  // namespace gammalab::http_query
