#pragma once
// Opening files under the shared root (core/shared_root.h names them) without following links. Anyone who can
// write to the shared root can plant a symbolic link at any of its paths: followed, the coordinator would serve
// the file it points at and a worker or trainer would write or read through it. So every open below a
// directory opened here walks from that directory's descriptor one component at a time, each with O_NOFOLLOW:
// a link anywhere below it (at jobs/<id>, at ckpt/, at a log, dangling or not) is refused with
// shared_root::Refused naming the path, and so is a FIFO, a device or a directory where a regular file
// belongs. The directory a Dir is opened at by path (the root as the admin configured it, or a directory
// given on a command line) may itself be a link: that is configuration, and is followed.
// A regular file with more than one name (a hard link: its other name may be a secret or another job's file)
// is Refused too. Directories are not checked for it: their link count counts their subdirectories.
// Errors: Refused for a link or a file of the wrong kind, std::invalid_argument for a relative path that could
// leave the directory ("..", absolute), std::runtime_error with the path and strerror for anything else.
// A Dir is an open descriptor, usable from any thread; it is not copyable.
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace gammalab::shared_root {

// A path under the shared root that is a symbolic link, or not the kind of file the caller needs, or larger
// than it may read. The message names the path.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An owned file descriptor (closed on destruction).
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd();
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// One entry of a directory listing, as lstat sees it (a link is a link, never its target).
struct DirEntry {
  std::string name;
  bool regular = false;  // a regular file (not a link, FIFO, device or directory)
  std::uint64_t bytes = 0;
  std::int64_t modified_ms = 0;  // since the Unix epoch
};

class Dir {
 public:
  // The directory at `path`, following links in `path` itself (configuration, not content). With `create`,
  // missing directories are made first (mode 0755). Throws std::runtime_error if it is not a directory.
  static Dir open(const std::filesystem::path& path, bool create = false);
  // The shared root at `root` (following links in `root` itself, like open); nullopt when it does not exist.
  // Its messages name paths relative to the root ("jobs/7/log.txt: is a symbolic link (not followed)"), as
  // core/shared_root.h does: a reply may quote them without telling where the root is.
  static std::optional<Dir> open_root(const std::filesystem::path& root);

  // Every `rel` below is a relative path of plain names (no "..", ".", empty or absolute component), walked
  // from this directory with no link followed.

  // The directory at `rel`; nullopt when a component does not exist. Refused for a link or a non-directory.
  std::optional<Dir> find_dir(const std::filesystem::path& rel) const;
  // The same, making missing components (mkdirat, 0755; then opened O_NOFOLLOW like any other).
  Dir make_dir(const std::filesystem::path& rel) const;

  // The regular file at `rel` opened for reading; nullopt when it (or a directory above it) does not exist.
  // Opened O_NONBLOCK so that a FIFO cannot block the caller, and checked with fstat before it is returned.
  std::optional<Fd> open_read(const std::filesystem::path& rel) const;
  // The whole file at `rel`, refused (Refused, naming the limit) when larger than `limit` bytes before more
  // than limit + 1 bytes are read; nullopt when it does not exist.
  std::optional<std::string> read(const std::filesystem::path& rel, std::size_t limit) const;
  // The regular file at `rel` opened for appending, created (0644) if absent; directories above it must exist.
  Fd open_append(const std::filesystem::path& rel) const;
  // Replaces the file at `rel` atomically: a new temp file beside it (O_CREAT | O_EXCL | O_NOFOLLOW), fsync,
  // renameat over the name, fsync of the directory. Whatever was at the name (a link included) is replaced,
  // never written through.
  void write_atomic(const std::filesystem::path& rel, std::string_view bytes) const;
  // The same, except that an existing name is kept (renameat2 with RENAME_NOREPLACE): false, and nothing
  // written, when `rel` exists. Two writers racing for one name: exactly one gets true.
  bool write_new(const std::filesystem::path& rel, std::string_view bytes) const;
  // Removes the name at `rel` (a link itself, never its target); absent is fine.
  void remove(const std::filesystem::path& rel) const;
  // The directory's entries (not "." and ".."), at most `max_entries`; `more` says whether there were others.
  std::vector<DirEntry> list(std::size_t max_entries, bool* more = nullptr) const;

  // The path this directory was reached by, for messages (relative to the root for open_root's).
  const std::filesystem::path& path() const { return path_; }
  int fd() const { return fd_.get(); }

 private:
  Dir(Fd fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}
  std::optional<Dir> walk(const std::filesystem::path& rel, bool create) const;
  bool place(const std::filesystem::path& rel, std::string_view bytes, bool replace) const;
  // The directory holding the last component of `rel`, and that component's name.
  std::pair<Dir, std::string> parent_of(const std::filesystem::path& rel) const;  // throws when absent
  std::optional<Dir> find_parent(const std::filesystem::path& rel, std::string& name) const;

  Fd fd_;
  std::filesystem::path path_;
};

// `path` as a relative path below `root` ("a/b" for root/a/b, compared lexically); nullopt when it is not
// strictly below it. For a command line that names a file under a root it also names.
std::optional<std::filesystem::path> relative_below(const std::filesystem::path& root,
                                                    const std::filesystem::path& path);

}  // namespace gammalab::shared_root
