#pragma once
// A checkpoint's integrity record: FILE.sum beside FILE holds {"crc32": "<8 hex digits>", "bytes": N} for the
// whole payload. The payload is written atomically first, then its record, so that a crash between the two
// leaves a complete payload with no record (loaded unverified) or a record for the previous payload of that
// name (rejected); either way a torn, truncated or overwritten payload is never deserialised as if intact.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/shared_root_files.h"

namespace gammalab::trainer {

std::filesystem::path checksum_path(const std::filesystem::path& file);
std::string checksum_name(std::string_view file_name);

// Writes `name` in `dir` atomically (temp, fsync, renameat), then its .sum the same way; a link planted at
// either name is replaced, never written through (core/shared_root_files.h).
void write_checked_file(const shared_root::Dir& dir, const std::string& name, std::string_view bytes);

struct CheckedBytes {
  std::string bytes;
  // False when FILE has no record: written before checksums were stored (or the writer died between the
  // payload and its record). Such a file is still complete, since the payload itself is renamed into place.
  bool verified = false;
};

// Reads `name` in `dir` (at most `limit` bytes) and checks its length and CRC-32 against its .sum. Neither is
// opened through a link. Throws std::runtime_error with the reason (missing, a link or not a regular file,
// larger than `limit`, malformed record, wrong length, checksum mismatch); the caller names the file.
CheckedBytes read_checked_file(const shared_root::Dir& dir, const std::string& name, std::size_t limit);

}  // namespace gammalab::trainer
