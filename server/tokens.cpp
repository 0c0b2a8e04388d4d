// Access tokens (server/tokens.h), hashed with libsodium.
//
// Why keyed BLAKE2b (crypto_generichash) with a per-token random key and not a password hash (crypto_pwhash):
// a password hash is slow on purpose, to make guessing a low-entropy password costly. A token's secret is 256
// random bits: nobody can guess it, slow or fast, so slowness would buy nothing and would cost every request
// (every gRPC call and HTTP request checks its token) tens of milliseconds of CPU, an easy way to exhaust the
// server. The per-token salt keeps equal secrets from having equal hashes and the hashes of two files from
// being compared.
#include "server/tokens.h"

#include <sodium.h>

#include <charconv>
#include <stdexcept>

#include "server/schema.h"
#include "server/store.h"

namespace gammalab {

namespace {

constexpr std::string_view kPrefix = "gl_";
constexpr std::size_t kSecretBytes = 32;
constexpr std::size_t kHashBytes = crypto_generichash_BYTES;  // 32
constexpr std::size_t kSaltBytes = crypto_generichash_KEYBYTES;

std::string hex(const unsigned char* data, std::size_t size) {
  std::string out(size * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), data, size);
  out.pop_back();
  return out;
}

// Hex to bytes; nullopt unless `text` is exactly `size` bytes of hex.
std::optional<std::vector<unsigned char>> unhex(std::string_view text, std::size_t size) {
  if (text.size() != size * 2) return std::nullopt;
  std::vector<unsigned char> out(size);
  std::size_t written = 0;
  if (sodium_hex2bin(out.data(), out.size(), text.data(), text.size(), nullptr, &written, nullptr) != 0 ||
      written != size) {
    return std::nullopt;
  }
  return out;
}

std::vector<unsigned char> keyed_hash(std::string_view secret, const unsigned char* salt) {
  std::vector<unsigned char> out(kHashBytes);
  crypto_generichash(out.data(), out.size(), reinterpret_cast<const unsigned char*>(secret.data()), secret.size(), salt,
                     kSaltBytes);
  return out;
}

void init_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

}  // namespace

std::string_view role_name(Role role) {
  switch (role) {
    case Role::kUser:
      return "user";
    case Role::kWorker:
      return "worker";
    case Role::kMetrics:
      return "metrics";
  }
  return "unknown";
}

std::optional<Role> parse_role(std::string_view name) {
  for (Role role : {Role::kUser, Role::kWorker, Role::kMetrics}) {
    if (name == role_name(role)) return role;
  }
  return std::nullopt;
}

std::optional<std::string_view> bearer_token(std::string_view authorization) {
  constexpr std::string_view kScheme = "Bearer ";
  if (authorization.size() <= kScheme.size() || authorization.size() > kScheme.size() + kMaxTokenBytes) return std::nullopt;
  if (authorization.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  return authorization.substr(kScheme.size());
}

Tokens::Tokens(const std::string& db_path) : db_(db_path), statements_(db_) {
  init_sodium();
  absl::MutexLock lock(&mutex_);
  migrate(db_);
}

std::string Tokens::create(Role role, const std::string& name) {
  if (name.size() > kMaxTokenNameBytes) {
    throw std::invalid_argument("--name: at most " + std::to_string(kMaxTokenNameBytes) + " bytes, got " +
                                std::to_string(name.size()));
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f) throw std::invalid_argument("--name: control characters are not allowed");
  }
  unsigned char secret_bytes[kSecretBytes];
  unsigned char salt[kSaltBytes];
  randombytes_buf(secret_bytes, sizeof secret_bytes);
  randombytes_buf(salt, sizeof salt);
  const std::string secret = hex(secret_bytes, sizeof secret_bytes);
  sodium_memzero(secret_bytes, sizeof secret_bytes);
  const std::vector<unsigned char> hash = keyed_hash(secret, salt);
  absl::MutexLock lock(&mutex_);
  sql::Statement& insert =
      statements_.get("INSERT INTO tokens(name, role, salt, hash, created_ms) VALUES (?, ?, ?, ?, ?)");
  insert.bind(1, name).bind(2, role_name(role)).bind(3, hex(salt, sizeof salt)).bind(4, hex(hash.data(), hash.size()));
  insert.bind(5, now_ms()).run();
  return std::string(kPrefix) + std::to_string(db_.last_insert_id()) + "_" + secret;
}

std::vector<TokenInfo> Tokens::list() {
  absl::MutexLock lock(&mutex_);
  std::vector<TokenInfo> out;
  sql::Statement& s = statements_.get("SELECT id, name, role, created_ms, revoked_ms FROM tokens ORDER BY id");
  while (s.step()) {
    TokenInfo t;
    t.id = s.int64(0);
    t.name = s.text(1);
    t.role = parse_role(s.text(2)).value_or(Role::kUser);
    t.created_ms = s.int64(3);
    if (!s.is_null(4)) t.revoked_ms = s.int64(4);
    out.push_back(std::move(t));
  }
  return out;
}

bool Tokens::revoke(std::int64_t id) {
  absl::MutexLock lock(&mutex_);
  sql::Statement& s = statements_.get("UPDATE tokens SET revoked_ms = ? WHERE id = ? AND revoked_ms IS NULL");
  s.bind(1, now_ms()).bind(2, id).run();
  return db_.changes() > 0;
}

std::optional<std::int64_t> token_id_of(std::string_view token) {
  if (token.size() > kMaxTokenBytes || token.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  token.remove_prefix(kPrefix.size());
  const std::size_t sep = token.find('_');
  if (sep == std::string_view::npos || sep == 0 || sep > 18) return std::nullopt;
  std::int64_t id = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + sep, id);
  if (ec != std::errc() || end != token.data() + sep || id <= 0) return std::nullopt;
  return id;
}

std::optional<Caller> Tokens::verify(std::string_view token) {
  const std::optional<std::int64_t> parsed_id = token_id_of(token);
  if (!parsed_id) return std::nullopt;
  const std::int64_t id = *parsed_id;
  const std::string_view secret = token.substr(token.find('_', kPrefix.size()) + 1);
  if (secret.size() != kSecretBytes * 2) return std::nullopt;

  std::string role, salt_hex, hash_hex;
  {
    absl::MutexLock lock(&mutex_);
    sql::Statement& s = statements_.get("SELECT role, salt, hash FROM tokens WHERE id = ? AND revoked_ms IS NULL");
    if (!s.bind(1, id).step()) return std::nullopt;
    role = s.text(0);
    salt_hex = s.text(1);
    hash_hex = s.text(2);
    s.reset();
  }
  const auto salt = unhex(salt_hex, kSaltBytes);
  const auto stored = unhex(hash_hex, kHashBytes);
  const auto parsed_role = parse_role(role);
  if (!salt || !stored || !parsed_role) return std::nullopt;
  const std::vector<unsigned char> hash = keyed_hash(secret, salt->data());
  if (sodium_memcmp(hash.data(), stored->data(), kHashBytes) != 0) return std::nullopt;
  return Caller{id, *parsed_role};
}

std::optional<Role> Tokens::active_role(std::int64_t id) {
  absl::MutexLock lock(&mutex_);
  sql::Statement& s = statements_.get("SELECT role FROM tokens WHERE id = ? AND revoked_ms IS NULL");
  if (!s.bind(1, id).step()) return std::nullopt;
  const std::optional<Role> role = parse_role(s.text(0));
  s.reset();
  return role;
}

}  // namespace gammalab
