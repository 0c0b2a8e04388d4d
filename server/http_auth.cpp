// The HTTP API's token and session check (server/http_auth.h).
#include "server/http_auth.h"

#include <sodium.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "server/random_hex.h"

namespace gammalab {

namespace {

constexpr std::size_t kSessionIdBytes = 32;

void send(HttpResponse& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_header("Cache-Control", "no-store");
  res.set_content(body.dump(), "application/json");
}

// The value of cookie `name` in the request's Cookie header; empty when absent.
std::string cookie_value(const HttpRequest& req, std::string_view name) {
  const std::string header = req.header("Cookie");
  std::string_view rest = header;
  while (!rest.empty()) {
    const std::size_t end = std::min(rest.find(';'), rest.size());
    std::string_view part = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    if (part.size() > name.size() && part.substr(0, name.size()) == name && part[name.size()] == '=') {
      return std::string(part.substr(name.size() + 1));
    }
  }
  return "";
}

}  // namespace

std::string HttpAuth::session_key(std::string_view session_id) {
  unsigned char hash[crypto_generichash_BYTES];
  crypto_generichash(hash, sizeof hash, reinterpret_cast<const unsigned char*>(session_id.data()), session_id.size(),
                     nullptr, 0);
  return std::string(reinterpret_cast<const char*>(hash), sizeof hash);
}

std::optional<Caller> HttpAuth::bearer_caller(const HttpRequest& req, bool& present) {
  present = req.has_header("Authorization");
  if (!present) return std::nullopt;
  const std::string header = req.header("Authorization");  // (bearer_token views into it)
  const std::optional<std::string_view> token = bearer_token(header);
  return token ? tokens_->verify(*token) : std::nullopt;
}

std::optional<std::int64_t> HttpAuth::session_token(const HttpRequest& req) {
  const std::string id = cookie_value(req, kCookie);
  if (id.size() != kSessionIdBytes * 2) return std::nullopt;
  std::int64_t token_id = 0;
  {
    absl::MutexLock lock(&mutex_);
    auto it = sessions_.find(session_key(id));
    if (it == sessions_.end()) return std::nullopt;
    const auto now = std::chrono::steady_clock::now();
    if (now - it->second.last_used > kSessionIdle) {
      sessions_.erase(it);
      return std::nullopt;
    }
    it->second.last_used = now;
    token_id = it->second.token_id;
  }
  // A revoked token ends its sessions at their next request.
  if (tokens_->active_role(token_id) != Role::kUser) return std::nullopt;
  return token_id;
}

int HttpAuth::check(const HttpRequest& req, std::string& reason, bool scrape) {
  if (tokens_ == nullptr) return 0;
  bool present = false;
  if (const std::optional<Caller> caller = bearer_caller(req, present)) {
    if (caller->role == Role::kUser || (scrape && caller->role == Role::kMetrics)) return 0;
    reason = "a " + std::string(role_name(caller->role)) + " token cannot " +
             (scrape ? "read /metrics (it needs a metrics or a user token)"
                     : "use the HTTP API (it needs a user token)");
    return 403;
  }
  if (present) {
    reason = "invalid or revoked token";
    return 401;
  }
  if (session_token(req)) return 0;
  reason = "no token: send \"Authorization: Bearer <token>\" or open a session (POST /api/session)";
  return 401;
}

void HttpAuth::open_session(const HttpRequest& req, HttpResponse& res) {
  if (tokens_ == nullptr) return send(res, 200, {{"auth", false}});
  bool present = false;
  const std::optional<Caller> caller = bearer_caller(req, present);
  if (!caller) return send(res, 401, {{"error", present ? "invalid or revoked token" : "no token"}});
  if (caller->role != Role::kUser) return send(res, 403, {{"error", "the dashboard needs a user token"}});
  const std::string id = random_hex(kSessionIdBytes);
  {
    absl::MutexLock lock(&mutex_);
    make_room_for(caller->token_id);
    sessions_[session_key(id)] = {caller->token_id, std::chrono::steady_clock::now()};
  }
  res.set_header("Set-Cookie", std::string(kCookie) + "=" + id + "; Path=/; HttpOnly; SameSite=Strict" +
                                   (secure_cookie_ ? "; Secure" : ""));
  send(res, 200, {{"auth", true}});
}

void HttpAuth::close_session(const HttpRequest& req, HttpResponse& res) {
  const std::string id = cookie_value(req, kCookie);
  if (!id.empty()) {
    absl::MutexLock lock(&mutex_);
    sessions_.erase(session_key(id));
  }
  res.set_header("Set-Cookie", std::string(kCookie) + "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  send(res, 200, {{"auth", tokens_ != nullptr}});
}

void HttpAuth::make_room_for(std::int64_t token_id) {
  using It = std::map<std::string, Session>::iterator;
  // A lambda is a function of its own to the thread-safety analysis: it says it runs under the caller's lock.
  auto oldest_of = [&](auto&& keep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    It oldest = sessions_.end();
    for (It it = sessions_.begin(); it != sessions_.end(); ++it) {
      if (keep(it->second) && (oldest == sessions_.end() || it->second.last_used < oldest->second.last_used)) {
        oldest = it;
      }
    }
    return oldest;
  };
  std::map<std::int64_t, std::size_t> per_token;
  for (const auto& [key, session] : sessions_) ++per_token[session.token_id];
  if (per_token[token_id] >= kMaxSessionsPerToken) {
    sessions_.erase(oldest_of([&](const Session& s) { return s.token_id == token_id; }));
    return;
  }
  if (sessions_.size() < kMaxSessions) return;
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(sessions_, [&](const auto& entry) { return now - entry.second.last_used > kSessionIdle; });
  if (sessions_.size() < kMaxSessions) return;
  // Full of live sessions (at least 32 tokens' worth): the heaviest token gives one up.
  const auto heaviest = std::max_element(per_token.begin(), per_token.end(),
                                         [](const auto& a, const auto& b) { return a.second < b.second; });
  sessions_.erase(oldest_of([&](const Session& s) { return s.token_id == heaviest->first; }));
}

std::optional<std::int64_t> HttpAuth::caller_token_id(const HttpRequest& req) {
  if (tokens_ == nullptr) return std::nullopt;
  bool present = false;
  if (const std::optional<Caller> caller = bearer_caller(req, present)) return caller->token_id;
  return present ? std::nullopt : session_token(req);
}

bool HttpAuth::refresh_revocations() {
  if (tokens_ == nullptr) return false;
  std::set<std::int64_t> now;
  for (const TokenInfo& t : tokens_->list()) {
    if (t.revoked_ms) now.insert(t.id);
  }
  absl::MutexLock lock(&mutex_);
  const bool newly = !std::includes(revoked_.begin(), revoked_.end(), now.begin(), now.end());  // both sorted sets
  if (newly) std::erase_if(sessions_, [&](const auto& entry) { return now.contains(entry.second.token_id); });
  revoked_ = std::move(now);
  return newly;
}

bool HttpAuth::revoked(std::int64_t token_id) const {
  absl::MutexLock lock(&mutex_);
  return revoked_.contains(token_id);
}

}  // namespace gammalab
