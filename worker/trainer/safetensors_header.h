#pragma once
// The safetensors header, parsed and checked without LibTorch, before a single tensor is allocated: a
// checkpoint or exported model is a file anyone with write access to the shared root can replace, so its
// header is hostile input. The checks are the format's own (https://github.com/huggingface/safetensors):
// a bounded header, known dtypes, byte ranges that match shape × dtype size and that tile the data section
// exactly (no holes, no overlaps), metadata of strings only.
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gammalab::trainer {

// The format's own limit on the JSON header (the reference implementation refuses larger ones).
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;
// No tensor of ours has more dimensions; a bound keeps the shape's product cheap and its text short.
inline constexpr std::size_t kMaxSafetensorsRank = 8;

struct SafeTensorsEntry {
  std::string name;
  std::string dtype;  // "F32", "BF16", ... (see safetensors_dtype_bytes)
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;  // byte range in the data section, [begin, end)
  std::uint64_t end = 0;
};

struct SafeTensorsHeader {
  std::vector<SafeTensorsEntry> entries;  // in data order (by begin)
  std::map<std::string, std::string> metadata;
  std::uint64_t data_offset = 0;  // where the data section starts in the file
};

// Bytes per element of a dtype name, 0 for a name the format does not have (or we do not read).
std::size_t safetensors_dtype_bytes(std::string_view dtype);

// Parses and checks the header of a whole safetensors file. Throws std::runtime_error naming the entry,
// the field, the limit and the value; never allocates in proportion to a size the file claims.
SafeTensorsHeader parse_safetensors_header(std::string_view file);

}  // namespace gammalab::trainer
