// A job's log tail and checkpoint list for the dashboard (see job_files.h).
#include "server/job_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <stdexcept>

#include "core/checkpoint_record.h"
#include "core/shared_root.h"
#include "core/shared_root_files.h"
#include "core/utf8_text.h"

namespace gammalab {

namespace fs = std::filesystem;

namespace {

// Paths are built from ids the store made; checked anyway, so that no id can name a path elsewhere.
void check_job_id(std::string_view job_id) {
  if (!shared_root::is_job_id(job_id)) {
    throw std::invalid_argument("job id: expected a decimal job id, got '" + utf8_head(job_id, 64) + "'");
  }
}

// `open` applied to the shared root (nullopt while the root does not exist). A link or another kind of file on
// the way (core/shared_root_files.h) is no result either, with its reason in `refused`.
template <typename T, typename Open>
std::optional<T> open_below_root(const fs::path& shared_root, std::string& refused, Open open) {
  try {
    const std::optional<shared_root::Dir> root = shared_root::Dir::open_root(shared_root);
    if (root) return open(*root);
  } catch (const shared_root::Refused& e) {
    refused = e.what();
  }
  return std::nullopt;
}

}  // namespace

LogTail read_log_tail(const fs::path& shared_root, std::string_view job_id, std::size_t max_bytes) {
  check_job_id(job_id);
  LogTail tail;
  // Opened without following a link anywhere below the root (a link is refused, naming the path: never the
  // bytes of the file it points at).
  const std::optional<shared_root::Fd> file =
      open_below_root<shared_root::Fd>(shared_root, tail.refused, [&](const shared_root::Dir& root) {
        return root.open_read(shared_root::job_log_path(job_id));
      });
  if (!file) return tail;  // none yet, or refused
  struct stat st {};
  if (::fstat(file->get(), &st) != 0) {
    throw std::runtime_error("job " + std::string(job_id) + ": its log cannot be read");
  }
  const auto size = static_cast<std::uintmax_t>(st.st_size);
  // Up to 3 bytes more than asked: the start of a character cut by the offset is dropped by utf8_tail.
  const std::uintmax_t want = std::min<std::uintmax_t>(size, max_bytes + 3);
  std::string bytes(static_cast<std::size_t>(want), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pread(file->get(), bytes.data() + done, bytes.size() - done,
                              static_cast<off_t>(size - want + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("job " + std::string(job_id) + ": its log cannot be read");
    if (n == 0) break;  // truncated since
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  tail.exists = true;
  tail.size = size;
  tail.text = utf8_without_controls(utf8_tail(bytes, max_bytes));
  tail.truncated = size > max_bytes;
  return tail;
}

CheckpointList list_checkpoints(const fs::path& shared_root, std::string_view job_id, std::size_t max_files) {
  check_job_id(job_id);
  CheckpointList list;
  // No link is followed, at ckpt/ or above it (a link there is refused) or among its entries (not listed).
  const std::optional<shared_root::Dir> dir =
      open_below_root<shared_root::Dir>(shared_root, list.refused, [&](const shared_root::Dir& root) {
        return root.find_dir(shared_root::job_ckpt_dir(job_id));
      });
  if (!dir) return list;  // none yet, or refused
  for (const shared_root::DirEntry& entry : dir->list(kMaxCheckpointScan, &list.truncated)) {
    const auto step = shared_root::checkpoint_step(entry.name);
    if (!step || !entry.regular) continue;
    list.files.push_back({entry.name, *step, entry.bytes, entry.modified_ms});
  }
  std::sort(list.files.begin(), list.files.end(), [](const auto& a, const auto& b) { return a.step > b.step; });
  if (list.files.size() > max_files) {
    list.files.resize(max_files);
    list.truncated = true;
  }
  return list;
}

std::string branch_checkpoint_problem(const fs::path& shared_root, std::string_view job_id, std::int64_t step) {
  if (!shared_root::is_job_id(job_id) || step < 1) return "not a job id and a step";
  const fs::path dir = shared_root::job_ckpt_dir(job_id);
  const std::string name = shared_root::checkpoint_file_name(step);
  const std::string where = (dir / name).string();
  try {
    const std::optional<shared_root::Dir> root = shared_root::Dir::open_root(shared_root);
    if (!root) return "the shared root does not exist on the coordinator";
    const std::optional<shared_root::Fd> file = root->open_read(dir / name);
    if (!file) return where + " does not exist";
    struct stat st {};
    if (::fstat(file->get(), &st) != 0) return where + " cannot be read";
    const std::optional<std::string> text = root->read(dir / checkpoint_record_name(name), kMaxCheckpointRecordBytes);
    if (!text) return where + " has no integrity record beside it";
    const CheckpointRecord record = parse_checkpoint_record(*text, checkpoint_record_name(name));
    if (static_cast<std::uint64_t>(st.st_size) != record.bytes) {
      return where + " is " + std::to_string(st.st_size) + " bytes, its record says " + std::to_string(record.bytes);
    }
  } catch (const std::exception& e) {
    return where + ": " + e.what();
  }
  return {};
}

}  // namespace gammalab
