// The HTTP server over libmicrohttpd (http/http_server.h).
#include "http/http_server.h"

#include <microhttpd.h>
#include <netdb.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include <absl/strings/match.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace gammalab {

namespace {

// Once per thread: libmicrohttpd makes the pool's threads, so each lowers itself on its first request.
void lower_this_thread(int niceness) {
  thread_local bool lowered = false;
  if (lowered || niceness == 0) return;
  lowered = true;
  const auto tid = static_cast<id_t>(::gettid());
  errno = 0;
  const int now = ::getpriority(PRIO_PROCESS, tid);
  if (errno != 0 || ::setpriority(PRIO_PROCESS, tid, std::min(now + niceness, 19)) != 0) {
    spdlog::warn("HTTP server: cannot lower a thread's priority by {}: {}", niceness, std::strerror(errno));
  }
}

// Debian's Abseil has its own string_view, not std::string_view.
bool same_name(std::string_view a, std::string_view b) {
  return absl::EqualsIgnoreCase(absl::string_view(a.data(), a.size()), absl::string_view(b.data(), b.size()));
}

const std::string* find_field(const HttpFields& fields, std::string_view name, bool any_case) {
  for (const auto& [key, value] : fields) {
    if (any_case ? same_name(key, name) : key == name) return &value;
  }
  return nullptr;
}

// The client's numeric address ("127.0.0.1", "::1"), the key of per-client bounds.
std::string client_address(MHD_Connection* connection) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "";
  char host[NI_MAXHOST] = "";
  const socklen_t length =
      info->client_addr->sa_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
  if (::getnameinfo(info->client_addr, length, host, sizeof host, nullptr, 0, NI_NUMERICHOST) != 0) return "";
  return host;
}

MHD_Result collect_field(void* cls, MHD_ValueKind, const char* key, std::size_t key_size, const char* value,
                         std::size_t value_size) {
  static_cast<HttpFields*>(cls)->emplace_back(std::string(key, key_size),
                                              value == nullptr ? std::string() : std::string(value, value_size));
  return MHD_YES;
}

// A listening socket on host:port, made here rather than by libmicrohttpd so that a host name resolves like
// everywhere else, SO_REUSEADDR is set (a restart while old connections linger in TIME_WAIT) and SO_REUSEPORT
// is not (a second server on the same port fails instead of sharing its connections).
int listen_socket(const HttpServerOptions& options) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options.port);
  const std::string where = options.flag + " " + options.host + ":" + port;
  if (const int rc = ::getaddrinfo(options.host.empty() ? nullptr : options.host.c_str(), port.c_str(), &hints,
                                   &found);
      rc != 0) {
    throw std::runtime_error(where + ": cannot listen there (" + ::gai_strerror(rc) + ")");
  }
  std::string error = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 256) != 0) {
      error = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) {
    throw std::runtime_error(where + ": cannot listen there (" + error +
                             "; the port is in use, or the host is not an address of this machine)");
  }
  return fd;
}

int bound_port(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return -1;
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
  return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

void log_library_message(void*, const char* format, va_list args) {
  char text[512];
  std::vsnprintf(text, sizeof text, format, args);
  std::string_view line = text;
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  // Clients that go away, send garbage or speak plaintext to TLS are routine on a browser-facing port.
  spdlog::debug("http: {}", line);
}

// Connections past the process's open-file limit would fail at accept, after the bound said yes: the bound is
// kept below it, with room for everything else the process opens (gRPC, the database, logs, child pipes).
unsigned connections_within_file_limit(unsigned wanted, const std::string& flag) {
  constexpr rlim_t kKeptForTheRest = 256;
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return wanted;
  const rlim_t room = limit.rlim_cur > 2 * kKeptForTheRest ? limit.rlim_cur - kKeptForTheRest : limit.rlim_cur / 2;
  if (room >= wanted) return wanted;
  spdlog::warn("{}: at most {} connections, not {}: the open-file limit is {} (raise it: ulimit -n, systemd's "
               "LimitNOFILE=)",
               flag, room, wanted, limit.rlim_cur);
  return static_cast<unsigned>(room);
}

}  // namespace

bool HttpRequest::has_header(std::string_view name) const { return find_field(headers, name, true) != nullptr; }

std::string HttpRequest::header(std::string_view name) const {
  const std::string* value = find_field(headers, name, true);
  return value == nullptr ? "" : *value;
}

bool HttpRequest::has_param(std::string_view name) const { return find_field(params, name, false) != nullptr; }

std::string HttpRequest::param(std::string_view name) const {
  const std::string* value = find_field(params, name, false);
  return value == nullptr ? "" : *value;
}

void HttpResponse::set_header(std::string name, std::string value) {
  for (auto& [key, existing] : headers) {
    if (same_name(key, name)) {
      existing = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

void HttpResponse::set_content(std::string content, std::string_view content_type) {
  body = std::move(content);
  set_header("Content-Type", std::string(content_type));
}

void HttpResponse::set_file(int fd, std::uint64_t size, std::string_view content_type) {
  file_fd = fd;
  file_size = size;
  set_header("Content-Type", std::string(content_type));
}

void HttpResponse::set_stream(StreamSource source, std::string_view content_type) {
  stream = std::move(source);
  set_header("Content-Type", std::string(content_type));
}

void HttpResponse::set_error(int code, std::string_view message) {
  status = code;
  set_header("Cache-Control", "no-store");
  set_content(nlohmann::json{{"error", message}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
              "application/json");
}

// An open streamed response: the text its source gave that is not yet written, and whether it waits
// (suspended: out of libmicrohttpd's event loop until wake_streams()).
struct HttpServer::Stream {
  HttpServer* server = nullptr;
  MHD_Connection* connection = nullptr;
  StreamSource source;
  std::string out;
  std::size_t written = 0;
  bool suspended = false;
};

// A request being read: its request target as sent (from the URI log callback, before any decoding), whether
// the handler was reached with its headers, and its body so far.
struct HttpServer::Pending {
  std::string target;
  bool headers_seen = false;
  std::string body;
};

// An open connection: its socket, and since when its current request has been arriving (receiving: the
// handler has not yet had it whole).
struct HttpServer::Tracked {
  int fd = -1;
  std::chrono::steady_clock::time_point since;
  bool receiving = true;
};

// libmicrohttpd's callbacks, with access to the server's state.
struct HttpServerCallbacks {
  static ssize_t read_stream(void* cls, std::uint64_t, char* buf, std::size_t max) {
    auto* stream = static_cast<HttpServer::Stream*>(cls);
    if (stream->written == stream->out.size()) {
      HttpServer& server = *stream->server;
      absl::MutexLock lock(&server.mutex_);
      if (server.stopping_) return MHD_CONTENT_READER_END_OF_STREAM;
      StreamStep step = stream->source();
      if (step.kind == StreamStep::kEnd) return MHD_CONTENT_READER_END_OF_STREAM;
      if (step.kind == StreamStep::kWait || step.text.empty()) {
        // Under the lock, so that wake_streams() either sees this stream suspended or ran before the source
        // was asked (and then the source saw what it was woken for): no wake is lost.
        stream->suspended = true;
        MHD_suspend_connection(stream->connection);
        return 0;
      }
      stream->out = std::move(step.text);
      stream->written = 0;
    }
    const std::size_t n = std::min(max, stream->out.size() - stream->written);
    std::memcpy(buf, stream->out.data() + stream->written, n);
    stream->written += n;
    return static_cast<ssize_t>(n);
  }

  static void free_stream(void* cls) {
    auto* stream = static_cast<HttpServer::Stream*>(cls);
    {
      absl::MutexLock lock(&stream->server->mutex_);
      stream->server->streams_.erase(stream);
    }
    delete stream;  // with its source, and what the source holds (an event-stream slot)
  }

  static void free_string(void* cls) { delete static_cast<std::string*>(cls); }

  static MHD_Response* make_response(HttpServer& server, MHD_Connection* connection, HttpResponse& res) {
    if (res.stream) {
      auto* stream = new HttpServer::Stream;
      stream->server = &server;
      stream->connection = connection;
      stream->source = std::move(res.stream);
      MHD_Response* response =
          MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, &read_stream, stream, &free_stream);
      if (response == nullptr) {
        delete stream;
        return nullptr;
      }
      absl::MutexLock lock(&server.mutex_);
      server.streams_.insert(stream);
      return response;
    }
    if (res.file_fd >= 0) {
      MHD_Response* response = MHD_create_response_from_fd(static_cast<std::size_t>(res.file_size), res.file_fd);
      if (response == nullptr) ::close(res.file_fd);
      return response;
    }
    auto* body = new std::string(std::move(res.body));
    MHD_Response* response =
        MHD_create_response_from_buffer_with_free_callback_cls(body->size(), body->data(), &free_string, body);
    if (response == nullptr) delete body;
    return response;
  }

  static MHD_Result queue(HttpServer& server, MHD_Connection* connection, HttpResponse& res) {
    MHD_Response* response = make_response(server, connection, res);
    if (response == nullptr) return MHD_NO;
    for (const auto& [name, value] : server.options_.default_headers) {
      MHD_add_response_header(response, name.c_str(), value.c_str());
    }
    for (const auto& [name, value] : res.headers) {
      // A value that cannot be a header (a line break in it) is refused by libmicrohttpd: left out.
      MHD_add_response_header(response, name.c_str(), value.c_str());
    }
    const MHD_Result queued = MHD_queue_response(connection, static_cast<unsigned>(res.status), response);
    MHD_destroy_response(response);  // the connection holds it now
    return queued;
  }

  static MHD_Result queue_error(HttpServer& server, MHD_Connection* connection, int status,
                                std::string_view message) {
    HttpResponse res;
    res.set_error(status, message);
    return queue(server, connection, res);
  }

  static void* start_request(void*, const char* target, MHD_Connection*) {
    auto* pending = new HttpServer::Pending;
    pending->target = target;
    return pending;
  }

  // The request target's path, percent-decoded whole: libmicrohttpd hands the handler a decoded path as a C
  // string, which ends at a decoded %00 ("/app.js%00.html" would read as "/app.js"); here a NUL stays in the
  // path, where no route and no file name matches it.
  static std::string decoded_path(const std::string& target) {
    std::string path = target.substr(0, target.find('?'));
    path.resize(MHD_http_unescape(path.data()));
    return path;
  }

  static MHD_Result access(void* cls, MHD_Connection* connection, const char*, const char* method, const char*,
                           const char* upload_data, std::size_t* upload_data_size, void** req_cls) {
    HttpServer& server = *static_cast<HttpServer*>(cls);
    lower_this_thread(server.options_.thread_niceness);
    auto* pending = static_cast<HttpServer::Pending*>(*req_cls);
    if (pending == nullptr) return MHD_NO;  // start_request runs first for every request
    if (!pending->headers_seen) {  // the headers are in; the body, if any, comes in the next calls
      pending->headers_seen = true;
      const char* length = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
      std::uint64_t declared = 0;
      if (length != nullptr) {
        const std::string_view text = length;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), declared);
        if (error != std::errc() || end != text.data() + text.size()) declared = UINT64_MAX;
      }
      if (declared > server.options_.max_body_bytes) {
        return queue_error(server, connection, 413,
                           "request body: at most " + std::to_string(server.options_.max_body_bytes) +
                               " bytes, got " +
                               (length == nullptr ? std::string("?") : std::string(length).substr(0, 32)));
      }
      return MHD_YES;
    }
    if (*upload_data_size != 0) {
      if (pending->body.size() + *upload_data_size > server.options_.max_body_bytes) return MHD_NO;  // closed
      pending->body.append(upload_data, *upload_data_size);
      *upload_data_size = 0;
      return MHD_YES;
    }
    received(server, connection);
    HttpRequest req;
    req.method = method;
    req.path = decoded_path(pending->target);
    req.remote_addr = client_address(connection);
    req.body = std::move(pending->body);
    MHD_get_connection_values_n(connection, MHD_HEADER_KIND, &collect_field, &req.headers);
    MHD_get_connection_values_n(connection, MHD_GET_ARGUMENT_KIND, &collect_field, &req.params);
    HttpResponse res;
    try {
      server.handler_(req, res);
    } catch (const std::exception& e) {
      res = HttpResponse{};
      res.set_error(500, e.what());
    } catch (...) {
      res = HttpResponse{};
      res.set_error(500, "unknown error");
    }
    return queue(server, connection, res);
  }

  static HttpServer::Tracked* tracked(MHD_Connection* connection) {
    const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == nullptr ? nullptr : static_cast<HttpServer::Tracked*>(info->socket_context);
  }

  // The request is whole: no deadline while the handler answers it (an event stream may stay open for hours).
  static void received(HttpServer& server, MHD_Connection* connection) {
    absl::MutexLock lock(&server.mutex_);
    if (HttpServer::Tracked* t = tracked(connection)) t->receiving = false;
  }

  static void completed(void* cls, MHD_Connection* connection, void** req_cls, MHD_RequestTerminationCode) {
    delete static_cast<HttpServer::Pending*>(*req_cls);
    *req_cls = nullptr;
    // The next request on a kept-alive connection has a deadline of its own from now.
    HttpServer& server = *static_cast<HttpServer*>(cls);
    absl::MutexLock lock(&server.mutex_);
    if (HttpServer::Tracked* t = tracked(connection)) {
      t->receiving = true;
      t->since = std::chrono::steady_clock::now();
    }
  }

  // libmicrohttpd reports a connection closed before it closes the socket, and under the same lock as the
  // deadline thread's shutdown(): that thread never touches a socket number that was closed and reused.
  static void connection_changed(void* cls, MHD_Connection* connection, void** socket_context,
                                 MHD_ConnectionNotificationCode code) {
    HttpServer& server = *static_cast<HttpServer*>(cls);
    absl::MutexLock lock(&server.mutex_);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
      auto* t = new HttpServer::Tracked{info == nullptr ? -1 : info->connect_fd, std::chrono::steady_clock::now(),
                                        true};
      *socket_context = t;
      server.connections_.insert(t);
    } else if (auto* t = static_cast<HttpServer::Tracked*>(*socket_context)) {
      server.connections_.erase(t);
      delete t;
      *socket_context = nullptr;
    }
  }
};

HttpServer::HttpServer(HttpServerOptions options, Handler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {
  const bool tls = !options_.tls_cert_pem.empty();
  if (tls && MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
    throw std::runtime_error(options_.flag + ": this libmicrohttpd has no TLS support");
  }
  options_.max_connections = connections_within_file_limit(options_.max_connections, options_.flag);
  options_.max_connections_per_client = std::min(options_.max_connections_per_client, options_.max_connections);
  const int fd = listen_socket(options_);
  port_ = bound_port(fd);
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  if (tls) flags |= MHD_USE_TLS;
  // The key and certificate are only read while the daemon starts; options_ keeps them alive regardless.
  // Without TLS the option list ends where the key would be: what follows that MHD_OPTION_END is not read.
  daemon_ = MHD_start_daemon(
      flags, 0, nullptr, nullptr, &HttpServerCallbacks::access, this,
      MHD_OPTION_LISTEN_SOCKET, fd,
      MHD_OPTION_THREAD_POOL_SIZE, options_.threads,
      MHD_OPTION_CONNECTION_TIMEOUT, options_.idle_timeout_s,
      MHD_OPTION_CONNECTION_LIMIT, options_.max_connections,
      MHD_OPTION_PER_IP_CONNECTION_LIMIT, options_.max_connections_per_client,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, options_.max_header_bytes,
      MHD_OPTION_URI_LOG_CALLBACK, &HttpServerCallbacks::start_request, this,
      MHD_OPTION_NOTIFY_COMPLETED, &HttpServerCallbacks::completed, this,
      MHD_OPTION_NOTIFY_CONNECTION, &HttpServerCallbacks::connection_changed, this,
      MHD_OPTION_EXTERNAL_LOGGER, &log_library_message, this,
      tls ? MHD_OPTION_HTTPS_MEM_KEY : MHD_OPTION_END, options_.tls_key_pem.c_str(),
      MHD_OPTION_HTTPS_MEM_CERT, options_.tls_cert_pem.c_str(),
      MHD_OPTION_END);
  if (daemon_ == nullptr) {
    ::close(fd);
    throw std::runtime_error(options_.flag + " " + options_.host + ":" + std::to_string(options_.port) +
                             (tls ? ": cannot serve HTTPS there (are --tls-cert and --tls-key a certificate and "
                                    "its key?)"
                                  : ": cannot serve there"));
  }
  if (options_.request_deadline_s > 0) deadlines_ = std::thread([this] { enforce_request_deadlines(); });
}

void HttpServer::enforce_request_deadlines() {
  const auto deadline = std::chrono::seconds(options_.request_deadline_s);
  absl::MutexLock lock(&mutex_);
  while (!mutex_.AwaitWithTimeout(absl::Condition(&stopping_), absl::Milliseconds(250))) {
    const auto now = std::chrono::steady_clock::now();
    for (Tracked* t : connections_) {
      if (t->receiving && t->fd >= 0 && now - t->since > deadline) {
        // Not close(): libmicrohttpd owns the socket. Shut down, it reads an end and closes the connection.
        ::shutdown(t->fd, SHUT_RDWR);
        t->receiving = false;
      }
    }
  }
}

HttpServer::~HttpServer() {
  {
    // Waiting streams must be resumed before the daemon stops; resumed, each reads stopping_ and ends.
    absl::MutexLock lock(&mutex_);
    stopping_ = true;  // also ends enforce_request_deadlines()
    for (Stream* stream : streams_) {
      if (stream->suspended) {
        stream->suspended = false;
        MHD_resume_connection(stream->connection);
      }
    }
  }
  if (deadlines_.joinable()) deadlines_.join();
  MHD_stop_daemon(daemon_);  // closes the listening socket it was given, too
}

void HttpServer::wake_streams() {
  absl::MutexLock lock(&mutex_);
  for (Stream* stream : streams_) {
    if (stream->suspended) {
      stream->suspended = false;
      MHD_resume_connection(stream->connection);
    }
  }
}

std::size_t HttpServer::open_streams() const {
  absl::MutexLock lock(&mutex_);
  return streams_.size();
}

}  // namespace gammalab
