// A job's log tail and checkpoint list for the dashboard (see job_files.h).
#include "server/job_files.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include "core/shared_root.h"
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

std::int64_t modified_ms(const fs::directory_entry& entry) {
  std::error_code ec;
  const auto t = entry.last_write_time(ec);
  if (ec) return 0;
  const auto system = std::chrono::file_clock::to_sys(t);
  return std::chrono::duration_cast<std::chrono::milliseconds>(system.time_since_epoch()).count();
}

}  // namespace

LogTail read_log_tail(const fs::path& shared_root, std::string_view job_id, std::size_t max_bytes) {
  check_job_id(job_id);
  LogTail tail;
  const fs::path path = shared_root / shared_root::job_log_path(job_id);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return tail;  // none yet (a link or a directory there is no log either)
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("job " + std::string(job_id) + ": its log cannot be read");
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uintmax_t>(std::max<std::streamoff>(0, in.tellg()));
  // Up to 3 bytes more than asked: the start of a character cut by the offset is dropped by utf8_tail.
  const std::uintmax_t want = std::min<std::uintmax_t>(size, max_bytes + 3);
  in.seekg(static_cast<std::streamoff>(size - want));
  std::string bytes(static_cast<std::size_t>(want), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(want));
  bytes.resize(static_cast<std::size_t>(in.gcount()));
  tail.exists = true;
  tail.size = size;
  tail.text = utf8_without_controls(utf8_tail(bytes, max_bytes));
  tail.truncated = size > max_bytes;
  return tail;
}

CheckpointList list_checkpoints(const fs::path& shared_root, std::string_view job_id, std::size_t max_files) {
  check_job_id(job_id);
  CheckpointList list;
  const fs::path dir = shared_root / shared_root::job_ckpt_dir(job_id);
  std::error_code ec;
  if (!fs::is_directory(fs::symlink_status(dir, ec))) return list;  // none yet; a link is not followed
  fs::directory_iterator it(dir, ec);
  std::size_t scanned = 0;
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (++scanned > kMaxCheckpointScan) {
      list.truncated = true;
      break;
    }
    const fs::directory_entry& entry = *it;
    const auto step = shared_root::checkpoint_step(entry.path().filename().string());
    std::error_code kind;
    if (!step || !entry.is_regular_file(kind) || entry.is_symlink(kind)) continue;
    std::error_code size_error;
    const std::uintmax_t bytes = entry.file_size(size_error);
    if (size_error) continue;  // removed since (the trainer keeps only its newest few)
    list.files.push_back({entry.path().filename().string(), *step, bytes, modified_ms(entry)});
  }
  std::sort(list.files.begin(), list.files.end(), [](const auto& a, const auto& b) { return a.step > b.step; });
  if (list.files.size() > max_files) {
    list.files.resize(max_files);
    list.truncated = true;
  }
  return list;
}

}  // namespace gammalab
