// The coordinator's lock on its database (server/database_lock.h).
#include "server/database_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace gammalab {

DatabaseLock::DatabaseLock(const std::string& database) {
  const std::string path = lock_path(database);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd_ < 0) throw std::runtime_error(path + ": cannot open the database's lock file (" + std::strerror(errno) + ")");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char holder[32] = {};
    const ssize_t n = ::pread(fd_, holder, sizeof holder - 1, 0);
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK) {
      std::string pid = n > 0 ? std::string(holder, static_cast<std::size_t>(n)) : "unknown";
      while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
      throw std::runtime_error("--db " + database + ": another gammalab-server (pid " + pid +
                               ") is serving this database; stop it first, or give this one another --db");
    }
    throw std::runtime_error(path + ": cannot lock (" + std::strerror(error) + ")");
  }
  // Who holds it, for the message above. Best effort: the lock, not this text, is what refuses a second server.
  const std::string pid = std::to_string(::getpid()) + "\n";
  [[maybe_unused]] const bool written =
      ::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
}

DatabaseLock::~DatabaseLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace gammalab
