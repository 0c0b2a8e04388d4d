#pragma once
// An HTTP/1.1 server (HTTPS with a certificate) over GNU libmicrohttpd, for the coordinator's dashboard and API
// and the worker's health probes. libmicrohttpd reads every connection without blocking, from a few epoll
// threads: a client that sends its request slowly, or not at all, holds a connection slot and some memory,
// never a thread, and is cut off after `idle_timeout_s` without a byte. A streamed response (server-sent
// events) waits suspended, outside the event loop, until wake_streams(): a thousand open dashboards hold no
// thread either. A request that is not whole `request_deadline_s` after its first byte (its line, headers and
// body; a client that sends a byte every few seconds) has its connection shut down.
//
// Bounds, each a libmicrohttpd option: connections in all (kept below the open-file limit) and per client
// address (beyond, the connection is refused at accept), a request's line and headers (`max_header_bytes`:
// 431 beyond) and its body (`max_body_bytes`: 413 when Content-Length says so, the connection closed when a
// chunked body grows past it).
// The handler runs on the event thread that read the request: it must not block for long.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace gammalab {

using HttpFields = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // as sent: "GET", "POST", ...
  std::string path;    // percent-decoded, without the query
  HttpFields headers;  // names as sent; looked up without regard to case
  HttpFields params;   // the query's arguments, percent-decoded
  std::string remote_addr;  // the client's numeric address
  std::string body;

  bool has_header(std::string_view name) const;
  std::string header(std::string_view name) const;  // empty when absent
  bool has_param(std::string_view name) const;
  std::string param(std::string_view name) const;  // the first with that name; empty when absent
};

// What a stream's source says each time it is asked: text to send now, nothing yet (the stream waits for the
// next wake_streams()), or the end of the stream.
struct StreamStep {
  enum Kind { kSend, kWait, kEnd };
  Kind kind = kWait;
  std::string text;
};
using StreamSource = std::function<StreamStep()>;

struct HttpResponse {
  int status = 200;
  HttpFields headers;
  std::string body;
  // Instead of `body`: a file's contents (the server closes it), or a stream (chunked; its source is called
  // from the event threads, under the server's lock, and must not block).
  int file_fd = -1;
  std::uint64_t file_size = 0;
  StreamSource stream;

  void set_header(std::string name, std::string value);
  void set_content(std::string content, std::string_view content_type);
  void set_file(int fd, std::uint64_t size, std::string_view content_type);
  void set_stream(StreamSource source, std::string_view content_type);
  // The one shape of an error: `status`, {"error": message} as JSON, not cached. The message may quote the
  // request: bytes in it that are not UTF-8 become U+FFFD (the JSON writer would throw on them).
  void set_error(int status, std::string_view message);
};

struct HttpServerOptions {
  std::string host;  // an address or a name of this machine
  int port = 0;      // 0: any free port
  std::string tls_cert_pem;  // both set: HTTPS only
  std::string tls_key_pem;
  unsigned threads = 4;
  // Added to the niceness of each of the server's threads (Linux schedules threads by their own niceness):
  // a service whose HTTP requests matter less than its other work (the coordinator's dashboard beside the
  // workers' leases) keeps that work prompt while its cores are busy with reads. 0: as the process.
  int thread_niceness = 0;
  unsigned idle_timeout_s = 5;
  unsigned request_deadline_s = 10;  // 0: none
  unsigned max_connections = 8192;
  unsigned max_connections_per_client = 2048;
  std::size_t max_header_bytes = 32 * 1024;
  std::size_t max_body_bytes = 64 * 1024;
  HttpFields default_headers;  // on every response the handler makes
  std::string flag = "--http";  // names the address in errors
};

class HttpServer {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpResponse&)>;

  // Listens and serves until destroyed. Throws std::runtime_error naming options.flag and the address when it
  // cannot listen there (the port is in use: no SO_REUSEPORT, so a second server never shares it) or the TLS
  // certificate and key are not usable. The handler's exceptions become 500 {"error": what()}.
  HttpServer(HttpServerOptions options, Handler handler);
  ~HttpServer();  // ends open streams, closes every connection, joins the threads
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  // Every waiting stream's source is asked again.
  void wake_streams() ABSL_LOCKS_EXCLUDED(mutex_);
  // Open streams, waiting or not (tests).
  std::size_t open_streams() const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  struct Stream;
  struct Pending;
  struct Tracked;
  friend struct HttpServerCallbacks;

  // Shuts down the connections whose request is past its deadline, until stopping_.
  void enforce_request_deadlines() ABSL_LOCKS_EXCLUDED(mutex_);

  HttpServerOptions options_;
  Handler handler_;
  int port_ = 0;
  MHD_Daemon* daemon_ = nullptr;
  mutable absl::Mutex mutex_;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  std::set<Stream*> streams_ ABSL_GUARDED_BY(mutex_);
  std::set<Tracked*> connections_ ABSL_GUARDED_BY(mutex_);
  std::thread deadlines_;  // enforce_request_deadlines()
};

}  // namespace gammalab
