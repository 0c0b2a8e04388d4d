#pragma once
// Which handler answers an HTTP request: routes by method and path pattern, where a `{}` segment matches one
// non-empty segment of the path and is handed to the handler. Matching splits the path once, with no
// regular expression over a client's input. GET routes answer HEAD as well (the server sends no body).
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "http/http_server.h"

namespace gammalab {

class HttpRouter {
 public:
  using PathArgs = std::vector<std::string>;
  using Handler = std::function<void(const HttpRequest&, HttpResponse&, const PathArgs&)>;

  enum class Outcome {
    kHandled,
    kNoRoute,      // no pattern matches the path
    kWrongMethod,  // a pattern matches, for other methods only
  };

  void add(std::string method, std::string_view pattern, Handler handler);
  void get(std::string_view pattern, Handler handler) { add("GET", pattern, std::move(handler)); }
  void post(std::string_view pattern, Handler handler) { add("POST", pattern, std::move(handler)); }
  void del(std::string_view pattern, Handler handler) { add("DELETE", pattern, std::move(handler)); }

  // Runs the first matching route's handler.
  Outcome dispatch(const HttpRequest& req, HttpResponse& res) const;

  // Every route as "METHOD /path/{}/..." in the order added: what a reference of the API must list.
  std::vector<std::string> routes() const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;  // "{}": any one segment
    Handler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace gammalab
