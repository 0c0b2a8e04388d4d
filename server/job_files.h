#pragma once
// What the dashboard shows of a job's files under the shared root (core/shared_root.h): the end of its log and
// the list of its checkpoints (names, steps, sizes; never their contents). Every read is bounded, whatever
// the files hold or how many there are: anyone who can write to the shared root chooses them.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gammalab {

struct LogTail {
  bool exists = false;      // false: the job has no log yet (never leased)
  std::uintmax_t size = 0;  // the whole log's size in bytes
  bool truncated = false;   // the text is the end of a longer log
  std::string text;         // valid UTF-8 without control characters (core/utf8_text.h), at most max_bytes
  // Why the log was not read, when it (or a directory above it) is a symbolic link or not a regular file
  // (core/shared_root_files.h: no link is followed); names the path relative to the shared root.
  std::string refused;
};
// Reads at most the last `max_bytes` bytes of the job's log. Throws std::runtime_error when it exists but
// cannot be read.
LogTail read_log_tail(const std::filesystem::path& shared_root, std::string_view job_id, std::size_t max_bytes);

struct CheckpointFile {
  std::string name;  // the file name, ckpt_<step>.safetensors
  std::int64_t step = 0;
  std::uintmax_t bytes = 0;
  std::int64_t modified_ms = 0;  // since the Unix epoch
};
struct CheckpointList {
  std::vector<CheckpointFile> files;  // highest step first, at most max_files
  bool truncated = false;             // more checkpoints than max_files, or more entries than the scan reads
  std::string refused;                // why none were listed: ckpt/ or a directory above it is a link
};
// The job's checkpoint files (regular files named as core/shared_root.h says; links and other entries are
// not listed). Reads at most kMaxCheckpointScan directory entries.
inline constexpr std::size_t kMaxCheckpointScan = 10000;
CheckpointList list_checkpoints(const std::filesystem::path& shared_root, std::string_view job_id,
                                std::size_t max_files);

// Why a cooldown branch may not start from the checkpoint its run announces at `step`, or empty when it may:
// jobs/<id>/ckpt/<the step's file> must be a regular file (no link, one name) with its integrity record beside
// it (core/checkpoint_record.h), exactly as long as the record says. Only sizes are compared: the payload may be
// many GB, and the branch's trainer checks its CRC-32 as it loads it. Never throws: a reason is returned.
std::string branch_checkpoint_problem(const std::filesystem::path& shared_root, std::string_view job_id,
                                      std::int64_t step);

}  // namespace gammalab
