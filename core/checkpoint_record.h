#pragma once
// A checkpoint's integrity record (FILE.sum beside FILE): {"crc32": "<8 hex digits>", "bytes": N} for the whole
// payload. The trainer writes and checks it (worker/trainer/checkpoint_checksum.h); the coordinator reads it to
// see that a branch point's checkpoint is there at its full length before a branch may start from it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gammalab {

// A record is one short JSON object; anything longer is not one.
inline constexpr std::size_t kMaxCheckpointRecordBytes = 4096;

struct CheckpointRecord {
  std::string crc32;  // 8 lowercase hex digits
  std::uint64_t bytes = 0;
};

std::string checkpoint_record_name(std::string_view file_name);  // FILE.sum
std::string format_checkpoint_record(const CheckpointRecord& record);  // one JSON line
// Throws std::runtime_error naming the record file `name` when `text` is not a record.
CheckpointRecord parse_checkpoint_record(std::string_view text, std::string_view name);

}  // namespace gammalab
