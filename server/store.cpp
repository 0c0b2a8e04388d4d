// The store's connection and change notification; the methods by entity are under server/store/.
#include "server/store.h"

#include "server/schema.h"

namespace gammalab {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Store::Store(const std::string& path) : db_(path), statements_(db_) { migrate(db_); }
Store::~Store() = default;

void Store::changed() {
  ++version_;
  change_cv_.notify_all();
}

bool Store::readable() {
  std::lock_guard lock(mutex_);
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
  std::lock_guard lock(mutex_);
  return version_;
}

std::uint64_t Store::wait_for_change(std::uint64_t seen, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  change_cv_.wait_for(lock, timeout, [&] { return version_ != seen; });
  return version_;
}

void Store::with_connection(const std::function<void(sqlite3*)>& f) {
  std::lock_guard lock(mutex_);
  f(db_.handle());
}

}  // namespace gammalab
