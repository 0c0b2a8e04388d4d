#pragma once
// Thin RAII wrappers over the SQLite C API: a connection, prepared statements with typed binds and reads,
// and a transaction guard. Every query in the project goes through a prepared Statement.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace gammalab::sql {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds are 1-based, as in SQLite. Returns *this to chain.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
  Statement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
  Statement& bind_null(int index);

  bool step();   // true while a row is available
  void run();    // step() to completion, for statements without rows
  void reset();  // ready for new binds (also done by run() and by a step() that returned false)

  std::int64_t int64(int column) const;
  double real(int column) const;
  std::optional<double> optional_real(int column) const;
  std::string text(int column) const;
  bool is_null(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  // kReadWrite opens (creating if needed) with WAL, foreign keys on and a busy timeout for other processes.
  // kReadOnly opens an existing database for reads only (its WAL mode is the file's), with the same timeout.
  enum class Access { kReadWrite, kReadOnly };
  explicit Database(const std::string& path, Access access = Access::kReadWrite);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  void exec(std::string_view sql);  // for schema and pragmas only; data goes through Statement
  sqlite3* handle() { return db_; }
  std::int64_t changes() const;
  std::int64_t last_insert_id() const;

 private:
  sqlite3* db_ = nullptr;
};

// Prepared statements kept for the life of a connection, keyed by their SQL text: each query is compiled
// once. get() hands the statement back reset, ready for binds. Not thread-safe (the caller locks).
class StatementCache {
 public:
  explicit StatementCache(Database& db) : db_(db) {}
  Statement& get(const std::string& sql);
  // Resets every statement: none is left part-way through its rows, holding the connection's snapshot open.
  void reset_all();

 private:
  Database& db_;
  std::map<std::string, std::unique_ptr<Statement>, std::less<>> statements_;
};

// BEGIN IMMEDIATE ... COMMIT, rolled back if destroyed before commit() (an exception on the way).
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace gammalab::sql
