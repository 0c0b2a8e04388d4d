// The store's pooled read-only connections (see server/store/read_pool.h).
#include "server/store/read_pool.h"

#include <algorithm>
#include <utility>

namespace gammalab::store_read {

struct ReadPool::Connection {
  explicit Connection(const std::string& path) : db(path, sql::Database::Access::kReadOnly), statements(db) {}
  sql::Database db;
  sql::StatementCache statements;
};

ReadPool::ReadPool(std::string path, std::size_t size) : path_(std::move(path)), size_(std::max<std::size_t>(1, size)) {}
ReadPool::~ReadPool() = default;

ReadPool::Read ReadPool::read() {
  std::unique_ptr<Connection> connection;
  {
    absl::MutexLock lock(&mutex_);
    // An idle connection, or room to open one; else wait for a read to end.
    mutex_.Await(absl::Condition(
        +[](ReadPool* pool) ABSL_EXCLUSIVE_LOCKS_REQUIRED(pool->mutex_) {
          return !pool->idle_.empty() || pool->open_ < pool->size_;
        },
        this));
    if (!idle_.empty()) {
      connection = std::move(idle_.back());
      idle_.pop_back();
    } else {
      ++open_;  // opened below, outside the lock
    }
  }
  try {
    if (!connection) connection = std::make_unique<Connection>(path_);
    connection->db.exec("BEGIN DEFERRED");  // the snapshot is taken by the read's first statement
  } catch (...) {
    give_back(nullptr);  // its place is free again
    throw;
  }
  return Read(*this, std::move(connection));
}

void ReadPool::give_back(std::unique_ptr<Connection> connection) {
  absl::MutexLock lock(&mutex_);
  if (connection) {
    idle_.push_back(std::move(connection));
  } else {
    --open_;  // a connection that failed is closed: another may open in its place
  }
}

std::size_t ReadPool::connections() const {
  absl::MutexLock lock(&mutex_);
  return open_;
}

ReadPool::Read::Read(ReadPool& pool, std::unique_ptr<Connection> connection)
    : pool_(pool), connection_(std::move(connection)) {}

ReadPool::Read::~Read() {
  // A statement left part-way through its rows would keep this snapshot, and the WAL behind it, alive.
  connection_->statements.reset_all();
  try {
    connection_->db.exec("COMMIT");
  } catch (...) {
    connection_.reset();  // a connection whose transaction did not end is closed, not reused
  }
  pool_.give_back(std::move(connection_));
}

sql::StatementCache& ReadPool::Read::statements() { return connection_->statements; }

}  // namespace gammalab::store_read
