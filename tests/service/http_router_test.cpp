// Route matching of the HTTP servers (http/http_router.h): a `{}` segment takes exactly one non-empty segment,
// an empty segment or a trailing slash matches nothing, HEAD is answered by GET routes, and a path served for
// other methods only is told apart from an unknown one.
#include "http/http_router.h"

#include <gtest/gtest.h>

namespace gammalab::testing {
namespace {

HttpRequest request(std::string method, std::string path) {
  HttpRequest req;
  req.method = std::move(method);
  req.path = std::move(path);
  return req;
}

class HttpRouterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.get("/api/sweeps", [this](const HttpRequest&, HttpResponse&, const HttpRouter::PathArgs& args) {
      hit_ = "sweeps";
      args_ = args;
    });
    router_.get("/api/sweeps/{}/jobs", [this](const HttpRequest&, HttpResponse&, const HttpRouter::PathArgs& args) {
      hit_ = "jobs";
      args_ = args;
    });
    router_.post("/api/jobs/{}/cancel", [this](const HttpRequest&, HttpResponse&, const HttpRouter::PathArgs& args) {
      hit_ = "cancel";
      args_ = args;
    });
  }
  HttpRouter::Outcome dispatch(std::string method, std::string path) {
    hit_.clear();
    args_.clear();
    HttpResponse res;
    return router_.dispatch(request(std::move(method), std::move(path)), res);
  }
  HttpRouter router_;
  std::string hit_;
  HttpRouter::PathArgs args_;
};

TEST_F(HttpRouterTest, ASegmentPatternTakesOneSegmentAndHandsItOver) {
  EXPECT_EQ(dispatch("GET", "/api/sweeps/dense-ladder/jobs"), HttpRouter::Outcome::kHandled);
  EXPECT_EQ(hit_, "jobs");
  EXPECT_EQ(args_, (HttpRouter::PathArgs{"dense-ladder"}));
  EXPECT_EQ(dispatch("POST", "/api/jobs/42/cancel"), HttpRouter::Outcome::kHandled);
  EXPECT_EQ(args_, (HttpRouter::PathArgs{"42"}));
}

TEST_F(HttpRouterTest, EmptySegmentsTrailingSlashesAndExtraSegmentsMatchNothing) {
  for (const char* path : {"/api/sweeps//jobs", "/api/sweeps/", "/api//sweeps", "//api/sweeps", "/api/sweeps/a/b/jobs",
                           "/api/sweeps/x/jobs/", "/api", "/", ""}) {
    EXPECT_EQ(dispatch("GET", path), HttpRouter::Outcome::kNoRoute) << path;
    EXPECT_TRUE(hit_.empty()) << path;
  }
}

TEST_F(HttpRouterTest, HeadIsAnsweredByGetRoutesAndOtherMethodsAreToldApart) {
  EXPECT_EQ(dispatch("HEAD", "/api/sweeps"), HttpRouter::Outcome::kHandled);
  EXPECT_EQ(hit_, "sweeps");
  EXPECT_EQ(dispatch("GET", "/api/jobs/42/cancel"), HttpRouter::Outcome::kWrongMethod);
  EXPECT_TRUE(hit_.empty()) << "a GET never runs the cancel";
  EXPECT_EQ(dispatch("DELETE", "/api/sweeps"), HttpRouter::Outcome::kWrongMethod);
  EXPECT_EQ(dispatch("get", "/api/sweeps"), HttpRouter::Outcome::kWrongMethod) << "methods are case-sensitive";
}

}  // namespace
}  // namespace gammalab::testing
