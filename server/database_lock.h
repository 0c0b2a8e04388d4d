#pragma once
// One coordinator per database: two would lease the same jobs twice and each think it owns every lease. The
// serving coordinator holds an exclusive lock (flock) on "<database>.lock" for as long as it runs; a second one
// on the same file is refused at start, naming the first's process id. The lock goes with the process, however
// it ends (kill -9 included), so a crashed coordinator never blocks its restart. `token` and `backup` commands
// take no lock: they work beside a running coordinator.
#include <string>

namespace gammalab {

class DatabaseLock {
 public:
  // Throws std::runtime_error when another process holds it (or the lock file cannot be made).
  explicit DatabaseLock(const std::string& database);
  ~DatabaseLock();
  DatabaseLock(const DatabaseLock&) = delete;
  DatabaseLock& operator=(const DatabaseLock&) = delete;

  static std::string lock_path(const std::string& database) { return database + ".lock"; }

 private:
  int fd_ = -1;
};

}  // namespace gammalab
