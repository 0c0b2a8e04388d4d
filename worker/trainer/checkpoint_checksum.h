#pragma once
// A checkpoint's integrity record: FILE.sum beside FILE holds {"crc32": "<8 hex digits>", "bytes": N} for the
// whole payload. The payload is written atomically first, then its record, so that a crash between the two
// leaves a complete payload with no record (loaded unverified) or a record for the previous payload of that
// name (rejected); either way a torn, truncated or overwritten payload is never deserialised as if intact.
#include <filesystem>
#include <string>
#include <string_view>

namespace gammalab::trainer {

std::filesystem::path checksum_path(const std::filesystem::path& file);

// Writes FILE atomically (temp, fsync, rename), then FILE.sum the same way.
void write_checked_file(const std::filesystem::path& file, std::string_view bytes);

struct CheckedBytes {
  std::string bytes;
  // False when FILE has no record: written before checksums were stored (or the writer died between the
  // payload and its record). Such a file is still complete, since the payload itself is renamed into place.
  bool verified = false;
};

// Reads FILE and checks its length and CRC-32 against FILE.sum. Throws std::runtime_error with the reason
// (missing or unreadable file, malformed record, wrong length, checksum mismatch); the caller names the file.
CheckedBytes read_checked_file(const std::filesystem::path& file);

}  // namespace gammalab::trainer
