#pragma once
// The store's read-only connections to its database file. A read takes one for its duration and runs in one
// read transaction on it: it sees one snapshot of the WAL file, and neither waits for the writer's lock (the
// Store's mutex and its one read-write connection) nor makes the writer wait. Each connection keeps its own
// prepared statements. One transaction per read also takes the WAL's read lock once: a statement outside one
// takes and drops it on the -shm file (two fcntl calls) each time. Internal to the store; thread-safe.
// The pool is bounded: at most `size` reads run at once, and a read beyond them waits for one to end. Reads are
// CPU work inside SQLite; more of them at once than there are cores only take the cores the writer (leases,
// ingest) needs, and a caller with many threads or streams would otherwise open a connection (descriptors, a
// page cache) for each.
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
  // Connections open lazily, on a read, so that the writer's migrations come first; at most `size` (>= 1) of
  // them, each kept open for the reads that follow.
  ReadPool(std::string path, std::size_t size);
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

  // The connections open now (idle or in a read): never more than `size`.
  std::size_t connections() const;

 private:
  void give_back(std::unique_ptr<Connection> connection);

  const std::string path_;
  const std::size_t size_;
  mutable absl::Mutex mutex_;
  std::vector<std::unique_ptr<Connection>> idle_ ABSL_GUARDED_BY(mutex_);
  std::size_t open_ ABSL_GUARDED_BY(mutex_) = 0;  // idle ones and those in a read
};

}  // namespace gammalab::store_read
