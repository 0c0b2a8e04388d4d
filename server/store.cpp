// The store's connection and change notification; the methods by entity are under server/store/.
#include "server/store.h"

#include <algorithm>
#include <thread>

#include "absl/time/time.h"

#include "core/uid.h"

#include "server/schema.h"

namespace gammalab {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

namespace {
// Reads at once (server/store/read_pool.h): one per core, at least 2 so that one long read (a sweep's
// metrics) never holds up every other, at most 16.
std::size_t read_connections() {
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 2, 16);
}
// The workers' reads are single lookups by key, done as soon as they start: two connections are plenty.
constexpr std::size_t kWorkerReadConnections = 2;
}  // namespace

Store::Store(const std::string& path)
    : db_(path), statements_(db_), readers_(path, read_connections()), worker_readers_(path, kWorkerReadConnections) {
  migrate(db_);
  // Savepoint journals in memory, not in a temporary file: ingest writes each report in a savepoint of its own
  // (store/metrics.cpp), and a report's original pages (a few dozen KiB) spilled to a file cost it a write
  // call each. The writer's other temporary data is small: its statements sort nothing large (the migrations,
  // which may sort a whole table, have run above, with the default).
  db_.exec("PRAGMA temp_store=MEMORY");
  sql::Statement identity(db_.handle(), "SELECT uid FROM database_identity WHERE id = 1");
  if (identity.step()) database_uid_ = identity.text(0);
  identity.reset();
  if (!is_uid(database_uid_)) throw sql::Error("database_identity: no uid (the database is damaged)");
}
Store::~Store() = default;

void Store::changed() { ++version_; }  // a waiter's condition (wait_for_change) is re-evaluated on unlock

bool Store::readable() {
  absl::MutexLock lock(&mutex_);
  try {
    sql::Statement& s = statements_.get("SELECT MAX(version) FROM schema_version");
    const bool answered = s.step();
    s.reset();
    return answered;
  } catch (const sql::Error&) {
    return false;
  }
}

std::uint64_t Store::version() {
  absl::MutexLock lock(&mutex_);
  return version_;
}

std::uint64_t Store::wait_for_change(std::uint64_t seen, std::chrono::milliseconds timeout) {
  absl::MutexLock lock(&mutex_);
  const auto moved = [this, seen]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return version_ != seen; };
  mutex_.AwaitWithTimeout(absl::Condition(&moved), absl::FromChrono(timeout));
  return version_;
}

void Store::with_connection(const std::function<void(sqlite3*)>& f) {
  absl::MutexLock lock(&mutex_);
  f(db_.handle());
}

}  // namespace gammalab
