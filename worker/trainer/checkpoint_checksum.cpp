#include "worker/trainer/checkpoint_checksum.h"

#include <cstdio>
#include <optional>
#include <stdexcept>

#include <zlib.h>

#include "core/checkpoint_record.h"

namespace gammalab::trainer {

namespace {

std::uint32_t crc32_of(std::string_view bytes) {
  // crc32_z takes a size_t length, so payloads over 4 GiB are covered in one call.
  return static_cast<std::uint32_t>(
      ::crc32_z(::crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(bytes.data()), bytes.size()));
}

std::string hex8(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "%08x", static_cast<unsigned>(v));
  return buf;
}

}  // namespace

std::filesystem::path checksum_path(const std::filesystem::path& file) {
  return file.parent_path() / checksum_name(file.filename().string());
}

std::string checksum_name(std::string_view file_name) { return checkpoint_record_name(file_name); }

void write_checked_file(const shared_root::Dir& dir, const std::string& name, std::string_view bytes) {
  dir.write_atomic(name, bytes);
  dir.write_atomic(checksum_name(name), format_checkpoint_record({hex8(crc32_of(bytes)), bytes.size()}));
}

CheckedBytes read_checked_file(const shared_root::Dir& dir, const std::string& name, std::size_t limit) {
  std::optional<std::string> bytes = dir.read(name, limit);
  if (!bytes) throw std::runtime_error("missing");
  CheckedBytes out;
  out.bytes = std::move(*bytes);
  const std::string sum = checksum_name(name);
  const std::optional<std::string> text = dir.read(sum, kMaxCheckpointRecordBytes);
  if (!text) return out;  // previous format: no record
  const CheckpointRecord record = parse_checkpoint_record(*text, sum);
  const std::string& crc = record.crc32;
  const std::uint64_t length = record.bytes;
  if (out.bytes.size() != length) {
    throw std::runtime_error("length " + std::to_string(out.bytes.size()) + " bytes, expected " +
                             std::to_string(length) + " (truncated or overwritten)");
  }
  const std::string actual = hex8(crc32_of(out.bytes));
  if (actual != crc) throw std::runtime_error("CRC-32 " + actual + ", expected " + crc + " (corrupted)");
  out.verified = true;
  return out;
}

}  // namespace gammalab::trainer
