#pragma once
// The store's read-only connections to its database file. A read takes one for its duration and runs in one
// read transaction on it: it sees one snapshot of the WAL file, and neither waits for the writer's lock (the
// Store's mutex and its one read-write connection) nor makes the writer wait. Each connection keeps its own
// prepared statements. One transaction per read also takes the WAL's read lock once: a statement outside one
// takes and drops it on the -shm file (two fcntl calls) each time. Internal to the store; thread-safe.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/sqlite.h"

namespace gammalab::store_read {

class ReadPool {
  struct Connection;

 public:
  // Connections open lazily, on a read, so that the writer's migrations come first. `keep`: how many stay
  // open between reads; more reads at once open more, closed when they end.
  ReadPool(std::string path, std::size_t keep);
  ~ReadPool();

  // One read: a connection inside a read transaction, handed back (statements reset, transaction ended) when
  // it goes out of scope.
  class Read {
   public:
    Read(Read&&) = delete;
    ~Read();
    sql::StatementCache& statements();

   private:
    friend class ReadPool;
    Read(ReadPool& pool, std::unique_ptr<Connection> connection);
    ReadPool& pool_;
    std::unique_ptr<Connection> connection_;
  };
  Read read();

 private:
  void give_back(std::unique_ptr<Connection> connection);

  const std::string path_;
  const std::size_t keep_;
  absl::Mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace gammalab::store_read
