// Opening files below a directory without following links (see shared_root_files.h): a walk of openat calls
// from the directory's descriptor, O_NOFOLLOW at every step, and lstat-style checks that name what was found.
#include "core/shared_root_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>  // renameat2
#include <cstring>

namespace gammalab::shared_root {

namespace fs = std::filesystem;

namespace {

std::runtime_error system_error(const fs::path& path, const char* what, int err) {
  return std::runtime_error(path.string() + ": " + what + ": " + std::strerror(err));
}

// The components of `rel`, each a plain name: a path that could leave the directory is refused outright.
std::vector<std::string> components(const fs::path& rel) {
  if (rel.empty() || rel.is_absolute()) {
    throw std::invalid_argument("'" + rel.string() + "': expected a relative path below the directory");
  }
  std::vector<std::string> out;
  for (const fs::path& part : rel) {
    const std::string name = part.string();
    if (name.empty()) continue;  // after a trailing separator
    if (name == "." || name == ".." || name.find('/') != std::string::npos) {
      throw std::invalid_argument("'" + rel.string() + "': expected plain names, found '" + name + "'");
    }
    out.push_back(name);
  }
  if (out.empty()) throw std::invalid_argument("'" + rel.string() + "': expected a relative path below the directory");
  return out;
}

// Why `name` in `dir_fd` could not be opened as `wanted` ("a directory", "a regular file"): a link or
// another kind of file is Refused; anything else (permissions, I/O) is the open's own error.
[[noreturn]] void refuse(int dir_fd, const std::string& name, const fs::path& path, const char* wanted, int err) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) throw Refused(path.string() + ": is a symbolic link (not followed)");
    throw Refused(path.string() + ": is not " + wanted);
  }
  throw system_error(path, "cannot open", err);
}

// The entry `name` in `dir_fd` as lstat sees it: nullopt when absent; Refused when a link or not a regular
// file. Checked before an open so that a device or a FIFO is never opened at all; the open re-checks.
bool regular_or_absent(int dir_fd, const std::string& name, const fs::path& path) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return false;
    throw system_error(path, "cannot stat", errno);
  }
  if (S_ISLNK(st.st_mode)) throw Refused(path.string() + ": is a symbolic link (not followed)");
  if (!S_ISREG(st.st_mode)) throw Refused(path.string() + ": is not a regular file");
  return true;
}

// Opens `name` in `dir_fd` with `flags` (O_NOFOLLOW | O_NONBLOCK added), checks with fstat that it is a regular
// file, then clears O_NONBLOCK. -1 when it does not exist (for an open without O_CREAT).
int open_regular(int dir_fd, const std::string& name, const fs::path& path, int flags) {
  const int fd = ::openat(dir_fd, name.c_str(), flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == ENOENT && (flags & O_CREAT) == 0) return -1;
    // ELOOP: a link; ENXIO: a FIFO without a reader (opened for writing); ENOTDIR, EISDIR and the rest named.
    refuse(dir_fd, name, path, "a regular file", errno);
  }
  Fd owned(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw system_error(path, "cannot stat", errno);
  if (!S_ISREG(st.st_mode)) throw Refused(path.string() + ": is not a regular file");
  // A second name for the file (a hard link) may be anywhere on the filesystem, a secret or another job's
  // file among them: reading it would serve that file, appending to it would write there.
  if (st.st_nlink > 1) {
    throw Refused(path.string() + ": has " + std::to_string(st.st_nlink) +
                  " hard links (a file under the shared root has one name; not opened)");
  }
  const int status = ::fcntl(fd, F_GETFL);
  if (status < 0 || ::fcntl(fd, F_SETFL, status & ~O_NONBLOCK) != 0) throw system_error(path, "fcntl", errno);
  return owned.release();
}

void write_all(int fd, std::string_view bytes, const fs::path& path) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw system_error(path, "write", errno);
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

Dir Dir::open(const fs::path& path, bool create) {
  if (create) fs::create_directories(path);
  const int fd = ::open(path.empty() ? "." : path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw system_error(path, "cannot open the directory", errno);
  return Dir(Fd(fd), path);
}

std::optional<Dir> Dir::open_root(const fs::path& root) {
  const int fd = ::open(root.empty() ? "." : root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  if (fd < 0) throw system_error(root, "cannot open the shared root", errno);
  return Dir(Fd(fd), fs::path());
}

std::optional<Dir> Dir::walk(const fs::path& rel, bool create) const {
  Fd current;
  int at = fd_.get();
  fs::path path = path_;
  for (const std::string& name : components(rel)) {
    path /= name;
    constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
    int fd = ::openat(at, name.c_str(), kFlags);
    if (fd < 0 && errno == ENOENT && create) {
      if (::mkdirat(at, name.c_str(), 0755) != 0 && errno != EEXIST) throw system_error(path, "cannot make", errno);
      fd = ::openat(at, name.c_str(), kFlags);  // whatever is there now, made by us or not, opened without a link
    }
    if (fd < 0) {
      if (errno == ENOENT) return std::nullopt;
      refuse(at, name, path, "a directory", errno);
    }
    current = Fd(fd);
    at = fd;
  }
  return Dir(std::move(current), std::move(path));
}

std::optional<Dir> Dir::find_dir(const fs::path& rel) const { return walk(rel, false); }

Dir Dir::make_dir(const fs::path& rel) const { return *walk(rel, true); }

std::optional<Dir> Dir::find_parent(const fs::path& rel, std::string& name) const {
  const std::vector<std::string> parts = components(rel);
  name = parts.back();
  if (parts.size() == 1) {
    const int fd = ::fcntl(fd_.get(), F_DUPFD_CLOEXEC, 0);
    if (fd < 0) throw system_error(path_, "dup", errno);
    return Dir(Fd(fd), path_);
  }
  return walk(rel.parent_path(), false);
}

std::pair<Dir, std::string> Dir::parent_of(const fs::path& rel) const {
  std::string name;
  std::optional<Dir> parent = find_parent(rel, name);
  if (!parent) throw std::runtime_error((path_ / rel.parent_path()).string() + ": no such directory");
  return {std::move(*parent), std::move(name)};
}

std::optional<Fd> Dir::open_read(const fs::path& rel) const {
  std::string name;
  const std::optional<Dir> parent = find_parent(rel, name);
  if (!parent) return std::nullopt;
  const fs::path path = path_ / rel;
  if (!regular_or_absent(parent->fd(), name, path)) return std::nullopt;
  const int fd = open_regular(parent->fd(), name, path, O_RDONLY);
  if (fd < 0) return std::nullopt;
  return Fd(fd);
}

std::optional<std::string> Dir::read(const fs::path& rel, std::size_t limit) const {
  const std::optional<Fd> file = open_read(rel);
  if (!file) return std::nullopt;
  const fs::path path = path_ / rel;
  const auto too_large = [&] {
    return Refused(path.string() + ": larger than the limit of " + std::to_string(limit) + " bytes");
  };
  struct stat st {};
  if (::fstat(file->get(), &st) != 0) throw system_error(path, "cannot stat", errno);
  if (static_cast<std::uint64_t>(st.st_size) > limit) throw too_large();
  // The size may have grown since: read at most one byte more than the limit, to tell.
  std::string bytes(static_cast<std::size_t>(st.st_size) + 1, '\0');
  std::size_t done = 0;
  while (true) {
    if (done == bytes.size()) {
      if (bytes.size() > limit) throw too_large();
      bytes.resize(std::min(limit + 1, bytes.size() * 2));
    }
    const ssize_t n = ::read(file->get(), bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw system_error(path, "read", errno);
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done > limit) throw too_large();
  bytes.resize(done);
  return bytes;
}

Fd Dir::open_append(const fs::path& rel) const {
  auto [parent, name] = parent_of(rel);
  const fs::path path = path_ / rel;
  regular_or_absent(parent.fd(), name, path);
  return Fd(open_regular(parent.fd(), name, path, O_WRONLY | O_APPEND | O_CREAT));
}

void Dir::write_atomic(const fs::path& rel, std::string_view bytes) const { place(rel, bytes, true); }

bool Dir::write_new(const fs::path& rel, std::string_view bytes) const { return place(rel, bytes, false); }

bool Dir::place(const fs::path& rel, std::string_view bytes, bool replace) const {
  auto [parent, name] = parent_of(rel);
  const fs::path path = path_ / rel;
  static std::atomic<std::uint64_t> counter{0};
  const std::string tmp = name + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::openat(parent.fd(), tmp.c_str(), kFlags, 0644);
  if (fd < 0 && errno == EEXIST) {
    // A leftover (or a planted link) at the temp name: remove the name itself, then create it afresh.
    ::unlinkat(parent.fd(), tmp.c_str(), 0);
    fd = ::openat(parent.fd(), tmp.c_str(), kFlags, 0644);
  }
  if (fd < 0) throw system_error(parent.path() / tmp, "cannot create", errno);
  Fd file(fd);
  try {
    write_all(fd, bytes, parent.path() / tmp);
    if (::fsync(fd) != 0) throw system_error(parent.path() / tmp, "fsync", errno);
    ::close(file.release());
    if (::renameat2(parent.fd(), tmp.c_str(), parent.fd(), name.c_str(), replace ? 0 : RENAME_NOREPLACE) != 0) {
      if (!replace && errno == EEXIST) {
        ::unlinkat(parent.fd(), tmp.c_str(), 0);
        return false;
      }
      throw system_error(path, "cannot rename into place", errno);
    }
  } catch (...) {
    ::unlinkat(parent.fd(), tmp.c_str(), 0);
    throw;
  }
  ::fsync(parent.fd());
  return true;
}

void Dir::remove(const fs::path& rel) const {
  std::string name;
  const std::optional<Dir> parent = find_parent(rel, name);
  if (!parent) return;
  if (::unlinkat(parent->fd(), name.c_str(), 0) != 0 && errno != ENOENT) {
    throw system_error(path_ / rel, "cannot remove", errno);
  }
}

std::vector<DirEntry> Dir::list(std::size_t max_entries, bool* more) const {
  if (more != nullptr) *more = false;
  const int fd = ::openat(fd_.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);  // its own offset
  if (fd < 0) throw system_error(path_, "cannot open", errno);
  DIR* dir = ::fdopendir(fd);
  if (dir == nullptr) {
    const int err = errno;
    ::close(fd);
    throw system_error(path_, "cannot list", err);
  }
  std::vector<DirEntry> out;
  while (const dirent* entry = ::readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    if (out.size() == max_entries) {
      if (more != nullptr) *more = true;
      break;
    }
    DirEntry e;
    e.name = name;
    struct stat st {};
    if (::fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      e.regular = S_ISREG(st.st_mode);
      e.bytes = static_cast<std::uint64_t>(st.st_size);
      e.modified_ms = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
    }
    out.push_back(std::move(e));
  }
  ::closedir(dir);
  return out;
}

std::optional<fs::path> relative_below(const fs::path& root, const fs::path& path) {
  const fs::path rel = path.lexically_normal().lexically_relative(root.lexically_normal());
  if (rel.empty() || rel == "." || *rel.begin() == "..") return std::nullopt;
  return rel;
}

}  // namespace gammalab::shared_root
