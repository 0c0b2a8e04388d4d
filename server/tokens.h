#pragma once
// Access tokens: who may call the coordinator. A token has a role: `user` (the Coordinator service, the HTTP API
// and the dashboard), `worker` (the WorkerGateway service only) or `metrics` (GET /metrics only: what a
// Prometheus server is given, so that its credential cannot read a sweep or drive a job). Its text is "gl_<id>_<secret>": the id finds
// the row, the secret (32 random bytes, hex) proves it. The database keeps only a salted hash of the secret, so
// a copy of the file (a backup) lets nobody in. Revoked tokens stay listed and are refused from the next call.
// The class has its own SQLite connection, so `gammalab-server token ...` works on the file of a running server.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/sqlite.h"

namespace gammalab {

enum class Role { kUser, kWorker, kMetrics };
std::string_view role_name(Role role);
std::optional<Role> parse_role(std::string_view name);  // "user" | "worker" | "metrics"

struct TokenInfo {
  std::int64_t id = 0;
  std::string name;
  Role role = Role::kUser;
  std::int64_t created_ms = 0;
  std::optional<std::int64_t> revoked_ms;
};

// Who a verified token belongs to.
struct Caller {
  std::int64_t token_id = 0;
  Role role = Role::kUser;
};

// The longest token text read from a request (a real one is about 70 bytes); longer is refused unread.
inline constexpr std::size_t kMaxTokenBytes = 256;
inline constexpr std::size_t kMaxTokenNameBytes = 64;

// The token of an "authorization: Bearer <token>" value, or nullopt when it has another form.
std::optional<std::string_view> bearer_token(std::string_view authorization);

// The id part of a token's text ("gl_<id>_..."), unverified; nullopt when it has another form.
std::optional<std::int64_t> token_id_of(std::string_view token);

class Tokens {
 public:
  explicit Tokens(const std::string& db_path);  // opens the database, applying pending migrations

  // Makes a token and returns its text: the only time it exists outside the caller. Throws
  // std::invalid_argument for a name that is too long or has control characters.
  std::string create(Role role, const std::string& name);
  std::vector<TokenInfo> list();
  // False when no token has this id or it was already revoked.
  bool revoke(std::int64_t id);
  // The token's owner when `token` is one of ours and not revoked; nullopt otherwise (malformed, unknown,
  // wrong secret, revoked). The secret is compared in constant time.
  std::optional<Caller> verify(std::string_view token);
  // The role of token `id` while it is not revoked (what a dashboard session checks on each request).
  std::optional<Role> active_role(std::int64_t id);

 private:
  absl::Mutex mutex_;
  sql::Database db_ ABSL_GUARDED_BY(mutex_);
  sql::StatementCache statements_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace gammalab
