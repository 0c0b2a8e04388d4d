// The store's pooled read-only connections (see server/store/read_pool.h).
#include "server/store/read_pool.h"

#include <utility>

namespace gammalab::store_read {

struct ReadPool::Connection {
  explicit Connection(const std::string& path) : db(path, sql::Database::Access::kReadOnly), statements(db) {}
  sql::Database db;
  sql::StatementCache statements;
};

ReadPool::ReadPool(std::string path, std::size_t keep) : path_(std::move(path)), keep_(keep) {}
ReadPool::~ReadPool() = default;

ReadPool::Read ReadPool::read() {
  std::unique_ptr<Connection> connection;
  {
    absl::MutexLock lock(&mutex_);
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    }
  }
  if (!connection) connection = std::make_unique<Connection>(path_);
  connection->db.exec("BEGIN DEFERRED");  // the snapshot is taken by the read's first statement
  return Read(*this, std::move(connection));
}

void ReadPool::give_back(std::unique_ptr<Connection> connection) {
  absl::MutexLock lock(&mutex_);
  if (idle_.size() < keep_) idle_.push_back(std::move(connection));
}

ReadPool::Read::Read(ReadPool& pool, std::unique_ptr<Connection> connection)
    : pool_(pool), connection_(std::move(connection)) {}

ReadPool::Read::~Read() {
  // A statement left part-way through its rows would keep this snapshot, and the WAL behind it, alive.
  connection_->statements.reset_all();
  try {
    connection_->db.exec("COMMIT");
  } catch (...) {
    return;  // a connection whose transaction did not end is closed, not reused
  }
  pool_.give_back(std::move(connection_));
}

sql::StatementCache& ReadPool::Read::statements() { return connection_->statements; }

}  // namespace gammalab::store_read
