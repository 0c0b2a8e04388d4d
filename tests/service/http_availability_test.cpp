// The dashboard's HTTP server against clients that hold on: event streams are bounded per client and in all
// (503 with Retry-After beyond, the slot given back when a stream ends), neither open streams nor clients that
// never end their requests hold the server's threads, a request sent byte by byte or not at all is cut off,
// every response carries the dashboard's security headers, and a page of another origin cannot send it
// anything but reads.
#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "server/http_api.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

// A raw TCP connection to the server, so that the test controls exactly what is sent and when. `from`: the
// loopback address it comes from (127.0.0.0/8 is all loopback), so that one test can be several clients.
class RawConnection {
 public:
  explicit RawConnection(int port, const char* from = nullptr) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    if (from != nullptr) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      ::inet_pton(AF_INET, from, &local.sin_addr);
      bound_ = ::bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) == 0;
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    timeval timeout{30, 0};  // no read in this test waits longer (the server's own limits are shorter)
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~RawConnection() { close(); }
  bool connected() const { return connected_ && bound_; }
  // (MSG_NOSIGNAL: a server that closed the connection is an answer, not a SIGPIPE.)
  void send(const std::string& text) { (void)!::send(fd_, text.data(), text.size(), MSG_NOSIGNAL); }
  // Reads until `needle` has arrived or the peer closes; what arrived.
  std::string read_until(const std::string& needle) {
    std::string got;
    char buf[4096];
    while (got.find(needle) == std::string::npos) {
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }
  // Reads whatever the server still sends (an error page, say) until it closes the connection; false when
  // this side's own 30 s read timeout came first.
  bool closed_by_server() {
    char buf[4096];
    for (;;) {
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n == 0) return true;
      if (n < 0) return errno != EAGAIN && errno != EWOULDBLOCK;
    }
  }
  // Whether the server closes the connection within `wait` (whatever it sends first is read and dropped).
  bool closed_within(std::chrono::milliseconds wait) {
    const auto until = std::chrono::steady_clock::now() + wait;
    char buf[4096];
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      const ssize_t n = ::read(fd_, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return true;
    }
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
  bool connected_ = false;
  bool bound_ = true;
};

std::string open_event_stream(RawConnection& c) {
  c.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  return c.read_until("\r\n\r\n");
}

class HttpAvailability : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.http_address = "127.0.0.1:0";
    options_.web_root = path_.parent_path() / "web";
    std::filesystem::create_directories(options_.web_root);
    std::ofstream(options_.web_root / "index.html") << "<!doctype html><title>gammalab</title>";
    api_ = std::make_unique<HttpApi>(*store_, options_);
  }
  void TearDown() override {
    api_.reset();
    store_.reset();
    std::filesystem::remove_all(path_.parent_path());
  }
  std::filesystem::path path_ = temp_db("http-availability");
  std::unique_ptr<Store> store_ = std::make_unique<Store>(path_.string());
  ServerOptions options_;
  std::unique_ptr<HttpApi> api_;
};

TEST_F(HttpAvailability, EventStreamsAreBoundedPerClientAndTheSlotComesBack) {
  std::vector<std::unique_ptr<RawConnection>> streams;
  for (int i = 0; i < 8; ++i) {
    streams.push_back(std::make_unique<RawConnection>(api_->port()));
    ASSERT_TRUE(streams.back()->connected());
    EXPECT_NE(open_event_stream(*streams.back()).find("HTTP/1.1 200"), std::string::npos) << i;
  }
  RawConnection fifth(api_->port());
  fifth.send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string answer = fifth.read_until("}");
  EXPECT_NE(answer.find("HTTP/1.1 503"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Retry-After: 10"), std::string::npos) << answer;
  EXPECT_NE(answer.find("at most 8 per client and 256 in all"), std::string::npos) << answer;

  // Other requests are still served while the client's streams are open.
  httplib::Client client("127.0.0.1", api_->port());
  auto sweeps = client.Get("/api/sweeps");
  ASSERT_TRUE(sweeps);
  EXPECT_EQ(sweeps->status, 200);

  // A stream that goes away gives its slot back once the server writes to it (each change is written).
  streams.front()->close();
  bool reopened = false;
  for (int i = 0; i < 200 && !reopened; ++i) {
    store_->create_sweep(make_sweep("change" + std::to_string(i), 1), "", "", false);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    RawConnection again(api_->port());
    reopened = open_event_stream(again).find("HTTP/1.1 200") != std::string::npos;
  }
  EXPECT_TRUE(reopened) << "the closed stream's slot never came back";
}

// The server has 8 threads. 40 open event streams from five client addresses and 300 connections that never
// end their request line or headers hold none of them: every other request is still answered, and a change
// reaches every stream.
TEST_F(HttpAvailability, OpenStreamsAndUnfinishedRequestsHoldNoThread) {
  std::vector<std::unique_ptr<RawConnection>> streams;
  for (const char* from : {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6"}) {
    for (int i = 0; i < 8; ++i) {
      streams.push_back(std::make_unique<RawConnection>(api_->port(), from));
      ASSERT_TRUE(streams.back()->connected()) << from;
      streams.back()->send("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      const std::string head = streams.back()->read_until("event: hello");
      ASSERT_NE(head.find("HTTP/1.1 200"), std::string::npos) << from << " " << i << ": " << head;
      ASSERT_NE(head.find("event: hello"), std::string::npos) << head;
    }
  }
  EXPECT_EQ(api_->open_event_streams(), 40u);
  std::vector<std::unique_ptr<RawConnection>> unfinished;
  for (int i = 0; i < 300; ++i) {
    unfinished.push_back(std::make_unique<RawConnection>(api_->port()));
    ASSERT_TRUE(unfinished.back()->connected()) << i;
    unfinished.back()->send(i % 2 == 0 ? "GET /api/swe" : "GET /api/sweeps HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ");
  }
  httplib::Client client("127.0.0.1", api_->port());
  client.set_connection_timeout(10);
  client.set_read_timeout(10);
  for (int i = 0; i < 20; ++i) {
    auto res = client.Get("/api/sweeps");
    ASSERT_TRUE(res) << "request " << i << " was not answered: " << httplib::to_string(res.error());
    EXPECT_EQ(res->status, 200);
  }
  store_->create_sweep(make_sweep("wakes-every-stream", 1), "", "", false);
  const std::string version = std::to_string(store_->version());
  for (auto& stream : streams) {
    const std::string got = stream->read_until("\"version\":" + version + "}");
    EXPECT_NE(got.find("event: change"), std::string::npos) << got;
  }
}

TEST_F(HttpAvailability, ARequestThatNeverEndsItsHeadersIsCutOff) {
  RawConnection slow(api_->port());
  ASSERT_TRUE(slow.connected());
  slow.send("GET /api/sweeps HTTP/1.1\r\nHost: 127.0.0.1\r\n");  // and never the blank line
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(slow.closed_by_server());
  // Cut off by the server's read timeout (5 s), not by this test's own 30 s one.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(29));
}

// A client that sends its request a byte a second is never idle for the 5 s timeout, but its request is not
// whole at the 10 s deadline: the connection is shut down then, well before the 40 bytes are sent.
TEST_F(HttpAvailability, ARequestSentByteByByteIsCutOffAtItsDeadline) {
  RawConnection slow(api_->port());
  ASSERT_TRUE(slow.connected());
  const std::string request = "GET /api/sweeps HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaa";
  const auto start = std::chrono::steady_clock::now();
  bool cut_off = false;
  for (char c : request) {
    slow.send(std::string(1, c));
    if (slow.closed_within(std::chrono::seconds(1))) {
      cut_off = true;
      break;
    }
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(cut_off) << "the whole dribble was accepted";
  EXPECT_GE(elapsed, std::chrono::seconds(9)) << "cut off before the deadline";
  httplib::Client client("127.0.0.1", api_->port());
  auto after = client.Get("/api/sweeps");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

// A body over the limit is refused before it is read: 413 naming the limit and the declared size when
// Content-Length says so; a chunked body that grows past it has its connection closed.
TEST_F(HttpAvailability, ABodyOverTheLimitIsRefusedBeforeItIsRead) {
  RawConnection declared(api_->port());
  declared.send("POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10000000\r\n\r\n");
  const std::string answer = declared.read_until("}");
  EXPECT_NE(answer.find("HTTP/1.1 413"), std::string::npos) << answer;
  EXPECT_NE(answer.find("at most 65536 bytes, got 10000000"), std::string::npos) << answer;

  RawConnection chunked(api_->port());
  chunked.send("POST /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n");
  const std::string chunk(16 * 1024, 'x');
  char size_line[32];
  std::snprintf(size_line, sizeof size_line, "%zx\r\n", chunk.size());
  for (int i = 0; i < 8; ++i) chunked.send(size_line + chunk + "\r\n");  // 128 KiB
  EXPECT_TRUE(chunked.closed_by_server());

  httplib::Client client("127.0.0.1", api_->port());
  auto after = client.Get("/api/sweeps");
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, 200);
}

// A path that one route serves for other methods answers 405, naming the method; a GET never cancels.
TEST_F(HttpAvailability, AKnownPathWithAnotherMethodIs405) {
  httplib::Client client("127.0.0.1", api_->port());
  auto res = client.Delete("/api/sweeps");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 405);
  EXPECT_NE(res->body.find("method DELETE not allowed on /api/sweeps"), std::string::npos) << res->body;
  auto head = client.Head("/api/sweeps");
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200) << "HEAD is answered as GET, without the body";
  EXPECT_TRUE(head->body.empty());
}

TEST_F(HttpAvailability, EveryResponseCarriesTheSecurityHeaders) {
  httplib::Client client("127.0.0.1", api_->port());
  for (const char* path : {"/", "/api/sweeps", "/api/nothing-here", "/package.json"}) {
    auto res = client.Get(path);
    ASSERT_TRUE(res) << path;
    const std::string csp = res->get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << path << ": " << csp;
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << path;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << path;
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << path;
    EXPECT_EQ(res->get_header_value("X-Frame-Options"), "DENY") << path;
  }
}

// Compression at brotli's highest quality made a large metrics answer 15 times slower than sending it as it is:
// whatever the client accepts, answers come back uncompressed.
TEST_F(HttpAvailability, AnswersAreUncompressedWhateverTheClientAccepts) {
  for (const char* path : {"/", "/api/sweeps"}) {
    RawConnection c(api_->port());
    ASSERT_TRUE(c.connected());
    c.send(std::string("GET ") + path +
           " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: br, gzip, deflate\r\naccept-encoding: gzip\r\n"
           "Connection: close\r\n\r\n");
    const std::string reply = c.read_until("\r\n\r\n");
    ASSERT_EQ(reply.rfind("HTTP/1.1 200 ", 0), 0u) << path << ": " << reply.substr(0, 200);
    const std::string head = reply.substr(0, reply.find("\r\n\r\n"));
    EXPECT_EQ(head.find("Content-Encoding"), std::string::npos) << path << ": " << head;
  }
  RawConnection c(api_->port());
  c.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: br\r\nConnection: close\r\n\r\n");
  EXPECT_NE(c.read_until("</title>").find("<title>gammalab</title>"), std::string::npos);
}

TEST_F(HttpAvailability, WritesFromAnotherOriginAreRefused) {
  httplib::Client client("127.0.0.1", api_->port());
  auto foreign = client.Post("/api/sweeps", httplib::Headers{{"Origin", "http://evil.example"}}, "{}", "application/json");
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403) << foreign->body;
  EXPECT_NE(foreign->body.find("cross-origin request refused"), std::string::npos) << foreign->body;
  const std::string own = "http://127.0.0.1:" + std::to_string(api_->port());
  auto same = client.Post("/api/sweeps", httplib::Headers{{"Origin", own}}, "{}", "application/json");
  ASSERT_TRUE(same);
  EXPECT_NE(same->status, 403) << "the dashboard's own origin is not refused";
  auto read = client.Get("/api/sweeps", httplib::Headers{{"Origin", "http://evil.example"}});
  ASSERT_TRUE(read);
  EXPECT_EQ(read->status, 200) << "reads are not writes";
}

}  // namespace
}  // namespace gammalab::testing
