// What a caller with a valid token, or a web page the user opens, can do to the HTTP API: one token opening
// sessions in a loop evicts only its own; a revoked token's open event stream ends within seconds; without
// tokens, a request addressed to another host name (DNS rebinding) is refused, reads and writes alike.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "server/http_api.h"
#include "server/http_auth.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

using namespace std::chrono_literals;

httplib::Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

std::string open_session(httplib::Client& http, const std::string& token) {
  auto res = http.Post("/api/session", bearer(token), "", "text/plain");
  if (!res || res->status != 200) return "";
  const std::string set_cookie = res->get_header_value("Set-Cookie");
  return set_cookie.substr(0, set_cookie.find(';'));
}

// The HTTP API with tokens on a loopback port, over the coordinator's store.
ServerOptions http_options() {
  ServerOptions options;
  options.http_address = "127.0.0.1:0";
  return options;
}

int get_with_cookie(httplib::Client& http, const std::string& cookie) {
  auto res = http.Get("/api/sweeps", httplib::Headers{{"Cookie", cookie}});
  return res ? res->status : -1;
}

TEST(HttpAbuse, OneTokenOpeningSessionsInALoopEvictsOnlyItsOwn) {
  InProcessCoordinator c("http-sessions");
  const ServerOptions options = http_options();
  HttpApi api(c.store(), options, &c.tokens());
  httplib::Client http("127.0.0.1", api.port());
  const std::string victim_token = c.tokens().create(Role::kUser, "victim");
  const std::string victim = open_session(http, victim_token);
  ASSERT_FALSE(victim.empty());
  // More sessions than the server keeps in all, from one token.
  std::string first_of_attacker, last_of_attacker;
  for (std::size_t i = 0; i < HttpAuth::kMaxSessions + 10; ++i) {
    const std::string cookie = open_session(http, c.user_token());
    ASSERT_FALSE(cookie.empty()) << i;
    if (i == 0) first_of_attacker = cookie;
    last_of_attacker = cookie;
  }
  EXPECT_EQ(get_with_cookie(http, victim), 200) << "another token's session was evicted";
  EXPECT_EQ(get_with_cookie(http, last_of_attacker), 200);
  EXPECT_EQ(get_with_cookie(http, first_of_attacker), 401) << "the token's own oldest sessions go";
}

// Reads /api/events on its own thread until the server ends it.
class EventStream {
 public:
  EventStream(int port, httplib::Headers headers) : http_("127.0.0.1", port) {
    http_.set_read_timeout(20, 0);
    reader_ = std::thread([this, headers] {
      http_.Get("/api/events", headers, [this](const char*, std::size_t) {
        greeted_ = true;
        return true;
      });
      ended_ = true;
    });
  }
  ~EventStream() {
    if (!ended_) http_.stop();
    reader_.join();
  }
  bool wait_for(const std::atomic<bool>& flag, std::chrono::milliseconds limit) {
    for (auto until = std::chrono::steady_clock::now() + limit; !flag;) {
      if (std::chrono::steady_clock::now() > until) return false;
      std::this_thread::sleep_for(20ms);
    }
    return true;
  }
  bool greeted(std::chrono::milliseconds within) { return wait_for(greeted_, within); }
  bool ended(std::chrono::milliseconds within) { return wait_for(ended_, within); }

 private:
  httplib::Client http_;
  std::atomic<bool> greeted_{false}, ended_{false};
  std::thread reader_;
};

TEST(HttpAbuse, RevokingATokenEndsItsOpenEventStreamWithinSeconds) {
  InProcessCoordinator c("http-events-revoke");
  const ServerOptions options = http_options();
  HttpApi api(c.store(), options, &c.tokens());
  const std::string token = c.tokens().create(Role::kUser, "streamer");
  const std::int64_t token_id = c.tokens().list().back().id;
  EventStream stream(api.port(), bearer(token));
  EventStream other(api.port(), bearer(c.user_token()));
  ASSERT_TRUE(stream.greeted(4s));
  ASSERT_TRUE(other.greeted(4s));
  ASSERT_TRUE(c.tokens().revoke(token_id));
  EXPECT_TRUE(stream.ended(5s)) << "still open 5 s after its token's revocation";
  EXPECT_FALSE(other.ended(1s)) << "another token's stream ended too";
}

TEST(HttpAbuse, RevokingATokenEndsItsSessionsOpenEventStream) {
  InProcessCoordinator c("http-events-revoke-session");
  const ServerOptions options = http_options();
  HttpApi api(c.store(), options, &c.tokens());
  const std::string token = c.tokens().create(Role::kUser, "browser");
  const std::int64_t token_id = c.tokens().list().back().id;
  httplib::Client http("127.0.0.1", api.port());
  const std::string cookie = open_session(http, token);
  ASSERT_FALSE(cookie.empty());
  EventStream stream(api.port(), {{"Cookie", cookie}});
  ASSERT_TRUE(stream.greeted(4s));
  ASSERT_TRUE(c.tokens().revoke(token_id));
  EXPECT_TRUE(stream.ended(5s)) << "the session's stream is still open 5 s after its token's revocation";
  EXPECT_EQ(get_with_cookie(http, cookie), 401);
}

TEST(HttpAbuse, WithoutTokensARequestForAnotherHostNameIsRefused) {
  InProcessCoordinator c("http-rebinding");
  ServerOptions options;
  options.http_address = "127.0.0.1:0";
  options.insecure_no_auth = true;
  HttpApi api(c.store(), options, nullptr);
  const std::string sweep = c.store().create_sweep(make_sweep("rebound", 1), "", "", false).sweep.id;
  const std::string job = c.store().list_jobs(sweep).at(0).id;
  httplib::Client http("127.0.0.1", api.port());
  // The page of a rebound name sends that name as Host, and as Origin for its writes.
  const httplib::Headers rebound{{"Host", "attacker.example:" + std::to_string(api.port())},
                                 {"Origin", "http://attacker.example:" + std::to_string(api.port())}};
  auto read = http.Get("/api/sweeps", rebound);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 403);
  EXPECT_NE(read->body.find("Host attacker.example"), std::string::npos) << read->body;
  auto cancel = http.Post("/api/jobs/" + job + "/cancel", rebound, "", "text/plain");
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 403);
  EXPECT_EQ(c.store().find_job(job)->state, JobState::kPending);
  // Loopback names, with and without a port, are this machine's own.
  for (const std::string& host :
       std::vector<std::string>{"localhost", "127.0.0.1:" + std::to_string(api.port()), "[::1]", "localhost:80"}) {
    auto ok = http.Get("/api/sweeps", httplib::Headers{{"Host", host}});
    ASSERT_TRUE(ok);
    EXPECT_EQ(ok->status, 200) << host;
  }
}

}  // namespace
}  // namespace gammalab::testing
