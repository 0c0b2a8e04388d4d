// Fuzz target: whatever bytes a browser-facing client sends the dashboard's HTTP server, as one connection's
// worth of requests. A real HttpApi (server/http_api.h) over a real SQLite store with a sweep, a job with
// metric points and a user token, on loopback: the request line, headers, cookies and bearer tokens, the
// routes' path and query parsing, the static-file filter and the event stream all see the input.
//
// The input is sent as it is, except that the text USER_TOKEN becomes the store's user token and JOB_ID and
// SWEEP_ID the stored ids, so that the fuzzer reaches the authenticated routes and their parameters without
// guessing a secret. What must hold for every input:
//   - the first response starts with a status line and is not 500: a hostile request is answered with 4xx,
//     never with a handler's escaped exception; it carries the dashboard's Content-Security-Policy unless it
//     is libmicrohttpd's own answer to bytes that are no well-formed request (check_reply);
//   - afterwards the server still answers GET /api/meta with 200 (no thread lost, no lock held).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "core/sweep/config_hash.h"
#include "server/http_api.h"
#include "server/server_options.h"
#include "server/store.h"
#include "server/tokens.h"

namespace {

using gammalab::HttpApi;
using gammalab::Store;
using gammalab::Tokens;

struct Fixture {
  std::filesystem::path dir;
  gammalab::ServerOptions options;
  std::unique_ptr<Store> store;
  std::unique_ptr<Tokens> tokens;
  std::unique_ptr<HttpApi> api;
  std::string user_token;
  std::string job_id;
  std::string sweep_id;
};

// The fixture's directory, removed when the process exits (std::exit, as libFuzzer ends a run): the fixture
// itself is never destroyed, and every run of make test left one directory behind.
std::filesystem::path fixture_dir;

Fixture& fixture() {
  static Fixture* f = [] {
    auto* f = new Fixture;  // lives as long as the process: the fuzzer never returns to a destructor
    f->dir = std::filesystem::temp_directory_path() / ("gammalab-fuzz-http-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(f->dir / "web");
    fixture_dir = f->dir;
    std::atexit([] {
      std::error_code ignored;  // at exit nothing can be done about a file that will not go
      std::filesystem::remove_all(fixture_dir, ignored);
    });
    std::ofstream(f->dir / "web" / "index.html") << "<!doctype html><title>gammalab</title>";
    const std::string db = (f->dir / "gammalab.db").string();
    f->store = std::make_unique<Store>(db);
    f->tokens = std::make_unique<Tokens>(db);
    f->user_token = f->tokens->create(gammalab::Role::kUser, "fuzz");

    gammalab::Sweep sweep;
    sweep.name = "fuzz";
    gammalab::SweepJob job;
    job.config.steps = 10;
    job.name = "fuzz/job0";
    job.config_hash = gammalab::config_hash(job.config);
    sweep.jobs.push_back(job);
    f->sweep_id = f->store->create_sweep(sweep, "name: fuzz", "fuzz.yaml", false).sweep.id;
    const std::string worker = f->store->register_worker("host", 1, {"gpu0"}, "");
    const auto lease = f->store->lease(worker, 600000);
    f->job_id = lease->job.id;
    f->store->start(worker, f->job_id, lease->attempt);
    f->store->add_metrics(f->job_id, lease->attempt,
                          {{1, 100, "train/loss", 3.0}, {2, 200, "train/loss", 2.5}, {2, 200, "val/loss", 2.7}});

    f->options.http_address = "127.0.0.1:0";
    f->options.web_root = f->dir / "web";
    f->options.shared_root = f->dir / "shared";
    f->api = std::make_unique<HttpApi>(*f->store, f->options, f->tokens.get());
    return f;
  }();
  return *f;
}

void replace_all(std::string& text, std::string_view from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// Whether `reply` holds a whole first response: its head and, by Content-Length, its body (a response without
// one, such as an event stream's, is whole at the end of its head).
bool first_response_complete(const std::string& reply) {
  const std::size_t head_end = reply.find("\r\n\r\n");
  if (head_end == std::string::npos) return false;
  constexpr std::string_view kLength = "\r\nContent-Length: ";
  const std::size_t at = std::string_view(reply).substr(0, head_end).find(kLength);
  if (at == std::string::npos) return true;
  const std::size_t length = std::strtoull(reply.c_str() + at + kLength.size(), nullptr, 10);
  return reply.size() >= head_end + 4 + length;
}

// Whether `fd` becomes ready for `events` within `wait_ms`. libFuzzer's -timeout is a periodic SIGALRM: a
// blocking socket call it interrupts fails with EINTR (one with a socket timeout is never restarted), which
// must not read as a server that stopped answering. So waits are poll() calls, resumed for the time left.
bool wait_ready(int fd, short events, int wait_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    pollfd p{fd, events, 0};
    const int n = ::poll(&p, 1, static_cast<int>(std::max<long long>(left, 0)));
    if (n > 0) return true;
    if (n == 0 || errno != EINTR) return false;
  }
}

[[noreturn]] void fail_connect(int error) {
  std::fprintf(stderr, "fuzz_http_request: the server no longer accepts connections (%s)\n", std::strerror(error));
  std::abort();
}

// Sends `request` on a new connection and returns the server's first response, read until it is whole, the
// server closed the connection, or `wait_ms` passed without a byte (a request never ended is never answered).
// Then this side closes, so that the next input starts on a connection of its own.
std::string exchange(int port, const std::string& request, int wait_ms) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) std::abort();
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINTR) fail_connect(errno);
    // Interrupted, the connection goes on being made: its outcome is the socket's error once it is writable.
    if (!wait_ready(fd, POLLOUT, 5000)) fail_connect(ETIMEDOUT);
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) fail_connect(error);
  }
  for (std::size_t sent = 0; sent < request.size();) {
    const ssize_t n = ::send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the server may close early (a request it refused): what it answered still counts
    sent += static_cast<std::size_t>(n);
  }
  std::string reply;
  char buf[8192];
  while (!first_response_complete(reply) && wait_ready(fd, POLLIN, wait_ms)) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return reply;
}

[[noreturn]] void fail(const char* what, const std::string& reply) {
  std::fprintf(stderr, "fuzz_http_request: %s; the reply began:\n%.400s\n", what, reply.c_str());
  std::abort();
}

// Checks the first response to an input; empty is allowed (the server may close on bytes that are no request,
// or wait for the rest of one).
void check_reply(const std::string& reply) {
  if (reply.empty()) return;
  if ((reply.rfind("HTTP/1.1 ", 0) != 0 && reply.rfind("HTTP/1.0 ", 0) != 0) || reply.size() < 12) {
    fail("a reply without a status line", reply);
  }
  const std::string_view status = std::string_view(reply).substr(9, 3);
  if (status == "500") fail("a 500 answer", reply);
  const std::size_t head_end = reply.find("\r\n\r\n");
  const std::string_view head = std::string_view(reply).substr(0, head_end);
  // Every response the server's handler makes carries the policy. Only libmicrohttpd's own answers to what is
  // no well-formed request (a fixed page, before any handler ran) do not: those statuses alone may lack it.
  constexpr std::string_view kParserStatuses[] = {"400", "413", "414", "417", "431", "501", "505"};
  const bool parser_answer =
      std::find(std::begin(kParserStatuses), std::end(kParserStatuses), status) != std::end(kParserStatuses);
  if (head_end != std::string::npos && !parser_answer &&
      head.find("\r\nContent-Security-Policy: ") == std::string_view::npos) {
    fail("a response without the Content-Security-Policy", reply);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Fixture& f = fixture();
  std::string request(reinterpret_cast<const char*>(data), size);
  replace_all(request, "USER_TOKEN", f.user_token);
  replace_all(request, "JOB_ID", f.job_id);
  replace_all(request, "SWEEP_ID", f.sweep_id);
  const std::string reply = exchange(f.api->port(), request, 100);
  static const bool verbose = std::getenv("GAMMALAB_FUZZ_VERBOSE") != nullptr;  // what each input got back
  if (verbose) std::fprintf(stderr, "  -> %.*s\n", static_cast<int>(reply.find('\r')), reply.c_str());
  check_reply(reply);
  const std::string meta = exchange(f.api->port(),
                                    "GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                                        f.user_token + "\r\nConnection: close\r\n\r\n",
                                    5000);
  if (meta.rfind("HTTP/1.1 200 ", 0) != 0) fail("the server no longer answers GET /api/meta", meta);
  return 0;
}
