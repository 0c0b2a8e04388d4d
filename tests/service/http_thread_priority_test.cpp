// The HTTP server's threads run at the niceness they are given (http/http_server.h's thread_niceness): the
// coordinator's dashboard reads run below the workers' calls, so that reads filling every core never make a
// lease wait for their turn.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <httplib.h>

#include <cerrno>
#include <set>
#include <string>

#include "http/http_server.h"

namespace gammalab::testing {
namespace {

int this_threads_niceness() {
  errno = 0;
  return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
}

// Each answer is the niceness of the thread that served it.
std::set<int> niceness_seen(int thread_niceness) {
  HttpServerOptions options;
  options.host = "127.0.0.1";
  options.threads = 3;
  options.thread_niceness = thread_niceness;
  HttpServer server(options, [](const HttpRequest&, HttpResponse& res) {
    res.set_content(std::to_string(this_threads_niceness()), "text/plain");
  });
  std::set<int> seen;
  for (int i = 0; i < 30; ++i) {
    httplib::Client client("127.0.0.1", server.port());  // a new connection: any of the pool's threads
    auto res = client.Get("/");
    if (!res || res->status != 200) {
      ADD_FAILURE() << "no answer";
      break;
    }
    seen.insert(std::stoi(res->body));
  }
  return seen;
}

TEST(HttpThreadPriority, EveryServingThreadRunsAtTheGivenNicenessAboveTheProcesss) {
  const int base = this_threads_niceness();
  if (base + 5 > 19) GTEST_FAIL() << "this test runs at niceness " << base << ": no room to lower it by 5";
  EXPECT_EQ(niceness_seen(5), std::set<int>{base + 5});
  EXPECT_EQ(niceness_seen(0), std::set<int>{base}) << "0 leaves the threads as the process";
  EXPECT_EQ(this_threads_niceness(), base) << "the caller's thread is not lowered";
}

}  // namespace
}  // namespace gammalab::testing
