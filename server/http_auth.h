#pragma once
// Who may use the HTTP API, checked in one place (HttpApi::handle, server/http_api.cpp) for every /api/ request
// and for GET /metrics.
// A request is let in with a user token, sent as "Authorization: Bearer <token>", or with the cookie of a
// dashboard session. The dashboard's page and scripts are served to anyone (they hold no data) so that it can
// ask for a token: POST /api/session with the token in the Authorization header opens a session and sets an
// HttpOnly, SameSite=Strict cookie (EventSource cannot send headers; the token never goes in a URL and script
// never sees the session id). Sessions live in memory: a restart asks for the token again. A session ends
// with its token's revocation, after kSessionIdle without a request, or with DELETE /api/session.
// GET /metrics also lets in a metrics token (a Prometheus server's: scrape_config `authorization`), which
// nothing else does.
//   no or wrong token, no or unknown session: 401; a worker token, or a metrics token outside /metrics: 403.
#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "http/http_server.h"
#include "server/tokens.h"

namespace gammalab {

class HttpAuth {
 public:
  static constexpr auto kSessionIdle = std::chrono::hours(12);
  // Beyond kMaxSessionsPerToken, that token's least recently used session ends: one token (a script opening
  // sessions in a loop) evicts only its own. Beyond kMaxSessions in all, expired sessions go first, then the
  // oldest of the token holding the most.
  static constexpr std::size_t kMaxSessionsPerToken = 32;
  static constexpr std::size_t kMaxSessions = 1024;
  static constexpr char kCookie[] = "gammalab_session";

  // tokens null: no auth (--insecure-no-auth); secure_cookie: the server speaks TLS (the cookie's Secure flag).
  HttpAuth(Tokens* tokens, bool secure_cookie) : tokens_(tokens), secure_cookie_(secure_cookie) {}

  bool enabled() const { return tokens_ != nullptr; }
  // 0 when the request may go on, else the status it gets (401 or 403) with `reason` set. `scrape`: the request
  // is GET /metrics, which a metrics token may read as well as a user.
  int check(const HttpRequest& req, std::string& reason, bool scrape = false);
  // The /api/session routes: POST opens a session for the request's user token, GET says whether the request
  // is let in (200 {"auth": true|false}) and DELETE ends its session.
  void open_session(const HttpRequest& req, HttpResponse& res);
  void close_session(const HttpRequest& req, HttpResponse& res);
  // The token id a let-in request came with (its bearer token or its session); nullopt without auth.
  std::optional<std::int64_t> caller_token_id(const HttpRequest& req);

  // Revocations, read from the database by the caller's thread (the HTTP API's notifier) every second or so:
  // sessions of revoked tokens end at once, and open event streams ask revoked() (which reads no database, as
  // stream sources run under the HTTP server's lock). True when a token was newly revoked.
  bool refresh_revocations();
  bool revoked(std::int64_t token_id) const;

 private:
  // A bearer token's caller; nullopt when the header is absent (`present` false) or the token is not valid.
  std::optional<Caller> bearer_caller(const HttpRequest& req, bool& present);
  // The session's token id from the request's cookie, refreshing its idle time.
  std::optional<std::int64_t> session_token(const HttpRequest& req);
  static std::string session_key(std::string_view session_id);
  // Makes room for one more session of `token_id` (see kMaxSessionsPerToken).
  void make_room_for(std::int64_t token_id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  struct Session {
    std::int64_t token_id = 0;
    std::chrono::steady_clock::time_point last_used;
  };
  Tokens* tokens_;
  bool secure_cookie_;
  mutable absl::Mutex mutex_;
  // Keyed by a hash of the session id, so that looking one up tells nothing about the ids of others.
  std::map<std::string, Session> sessions_ ABSL_GUARDED_BY(mutex_);
  std::set<std::int64_t> revoked_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace gammalab
