// Fuzz target: the header of a safetensors file, as every checkpoint load and export reads it
// (worker/trainer/safetensors_header.h), before any tensor is allocated. A file is refused with
// std::runtime_error or yields entries that tile its data section exactly, each of the size its shape and
// dtype need; a shape that claims more than the file holds must never get as far as an allocation.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "worker/trainer/safetensors_header.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view file(reinterpret_cast<const char*>(data), size);
  gammalab::trainer::SafeTensorsHeader header;
  try {
    header = gammalab::trainer::parse_safetensors_header(file);
  } catch (const std::runtime_error&) {
    return 0;
  }
  std::uint64_t covered = 0;
  for (const auto& entry : header.entries) {
    if (entry.begin != covered || entry.end < entry.begin) std::abort();
    std::uint64_t bytes = gammalab::trainer::safetensors_dtype_bytes(entry.dtype);
    for (std::int64_t dim : entry.shape) bytes *= static_cast<std::uint64_t>(dim);
    if (bytes != entry.end - entry.begin) std::abort();
    covered = entry.end;
  }
  if (header.data_offset + covered != size) std::abort();
  return 0;
}
