#include "http/http_router.h"

#include <absl/strings/str_split.h>

namespace gammalab {

namespace {

// "/api/jobs/x/log" -> {"api", "jobs", "x", "log"}; "/" -> {}. An empty segment ("//", a trailing slash)
// stays, so that it matches no pattern.
std::vector<std::string> split_path(std::string_view path) {
  if (!path.empty() && path.front() == '/') path.remove_prefix(1);
  if (path.empty()) return {};
  return absl::StrSplit(absl::string_view(path.data(), path.size()), '/');  // (Debian's absl::string_view is its own)
}

constexpr std::string_view kAny = "{}";

bool matches(const std::vector<std::string>& pattern, const std::vector<std::string>& path,
             HttpRouter::PathArgs& args) {
  if (pattern.size() != path.size()) return false;
  args.clear();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == kAny) {
      if (path[i].empty()) return false;
      args.push_back(path[i]);
    } else if (pattern[i] != path[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

void HttpRouter::add(std::string method, std::string_view pattern, Handler handler) {
  routes_.push_back({std::move(method), split_path(pattern), std::move(handler)});
}

std::vector<std::string> HttpRouter::routes() const {
  std::vector<std::string> out;
  for (const Route& route : routes_) {
    std::string path;
    for (const std::string& segment : route.segments) path += "/" + segment;
    out.push_back(route.method + " " + (path.empty() ? "/" : path));
  }
  return out;
}

HttpRouter::Outcome HttpRouter::dispatch(const HttpRequest& req, HttpResponse& res) const {
  const std::vector<std::string> path = split_path(req.path);
  const std::string_view method = req.method == "HEAD" ? std::string_view("GET") : std::string_view(req.method);
  bool other_method = false;
  PathArgs args;
  for (const Route& route : routes_) {
    if (!matches(route.segments, path, args)) continue;
    if (route.method != method) {
      other_method = true;
      continue;
    }
    route.handler(req, res, args);
    return Outcome::kHandled;
  }
  return other_method ? Outcome::kWrongMethod : Outcome::kNoRoute;
}

}  // namespace gammalab
