// The HTTP API's reference and its router are one list: every route the server answers is a heading of
// docs/dashboard.md's API reference, and every route a heading names is answered. A route added without its documentation, or documented and gone, fails here.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

std::string read_text(const std::string& relative) {
  std::ifstream in(std::string(GAMMALAB_SOURCE_DIR) + "/" + relative);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// "GET /api/sweeps/{}" as the docs spell it: "GET /api/sweeps/{id}".
std::string as_documented(std::string route) {
  for (std::size_t at = route.find("{}"); at != std::string::npos; at = route.find("{}", at)) {
    route.replace(at, 2, "{id}");
  }
  return route;
}

// The routes docs/dashboard.md's headings name: each `METHOD /path` in a "### " line.
std::set<std::string> documented_routes(const std::string& doc) {
  std::set<std::string> out;
  const std::regex route("`((GET|POST|DELETE) /[^`?\\[ ]*)");
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("### ")) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), route), end; it != end; ++it) out.insert((*it)[1]);
  }
  return out;
}

// The routes of `served` that `doc`'s headings do not name, and those named that are not served.
std::vector<std::string> mismatches(const std::vector<std::string>& served, const std::string& doc) {
  std::vector<std::string> out;
  const std::set<std::string> named = documented_routes(doc);
  std::set<std::string> answered;
  for (const std::string& route : served) {
    answered.insert(as_documented(route));
    if (!named.contains(as_documented(route))) out.push_back("not in docs/dashboard.md: " + as_documented(route));
  }
  for (const std::string& route : named) {
    if (!answered.contains(route)) out.push_back("documented, not served: " + route);
  }
  return out;
}

TEST(HttpRouteDocs, EveryRouteIsDocumentedAndEveryDocumentedRouteIsServed) {
  InProcessCoordinator c("http-route-docs");
  ServerOptions options;
  options.http_address = "127.0.0.1:0";
  HttpApi api(c.store(), options, &c.tokens());
  const std::vector<std::string> routes = api.routes();
  ASSERT_GE(routes.size(), 30u);
  const std::string doc = read_text("docs/dashboard.md");
  EXPECT_EQ(mismatches(routes, doc), std::vector<std::string>{});
  // A planted route without documentation, and a documented route without its handler, are both found.
  std::vector<std::string> planted = routes;
  planted.push_back("GET /api/sweeps/{}/secret");
  EXPECT_EQ(mismatches(planted, doc), std::vector<std::string>{"not in docs/dashboard.md: GET /api/sweeps/{id}/secret"});
  EXPECT_EQ(mismatches(routes, doc + "\n### `DELETE /api/sweeps/{id}`\n"),
            std::vector<std::string>{"documented, not served: DELETE /api/sweeps/{id}"});
}

}  // namespace
}  // namespace gammalab::testing
