#include "server/sqlite.h"

#include <sqlite3.h>

#include "server/private_files.h"

namespace gammalab::sql {

namespace {
void check(sqlite3* db, int rc, std::string_view what) {
  if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) {
    throw Error(std::string(what) + ": " + sqlite3_errmsg(db));
  }
}
}  // namespace

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  check(db_,
        sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr),
        std::string("prepare ") + std::string(sql));
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int index, std::int64_t value) {
  check(db_, sqlite3_bind_int64(stmt_, index, value), "bind");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  check(db_, sqlite3_bind_double(stmt_, index, value), "bind");
  return *this;
}
Statement& Statement::bind(int index, std::string_view value) {
  check(db_, sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT), "bind");
  return *this;
}
Statement& Statement::bind_null(int index) {
  check(db_, sqlite3_bind_null(stmt_, index), "bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) {
    reset();
    return false;
  }
  std::string message = sqlite3_errmsg(db_);
  reset();
  throw Error("step: " + message);
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }
std::optional<double> Statement::optional_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}
std::string Statement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))) : std::string();
}
bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

Database::Database(const std::string& path, Access access) {
  const bool read_only = access == Access::kReadOnly;
  // Owner-only from its creation, and so its WAL and shared memory too (server/private_files.h).
  if (!read_only && !path.empty() && path.front() != ':' && !path.starts_with("file:")) create_private_file(path);
  // NOMUTEX: every owner of a Database serializes its use under its own lock (Store, Tokens), so SQLite's
  // per-call mutex only added a lock and an unlock to each bind, step and column read (16% of the time of a
  // sweep's downsampled metrics read, measured with perf).
  const int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw Error("open " + path + ": " + message);
  }
  sqlite3_busy_timeout(db_, 10000);
  if (read_only) return;  // the writer set the file's journal mode; a reader's synchronous and foreign keys are moot
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=NORMAL");  // WAL + NORMAL: durable across process crashes, fast commits
  exec("PRAGMA foreign_keys=ON");
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::exec(std::string_view sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw Error(std::string("exec: ") + text);
  }
}

std::int64_t Database::changes() const { return sqlite3_changes64(db_); }
std::int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

Statement& StatementCache::get(const std::string& sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) it = statements_.emplace(sql, std::make_unique<Statement>(db_.handle(), sql)).first;
  it->second->reset();
  return *it->second;
}

void StatementCache::reset_all() {
  for (auto& [sql, statement] : statements_) statement->reset();
}

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {
    }
  }
}
void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace gammalab::sql
