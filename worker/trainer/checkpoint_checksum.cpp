#include "worker/trainer/checkpoint_checksum.h"

#include <cstdio>
#include <stdexcept>
#include <system_error>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include "core/file_util.h"

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
  return file.parent_path() / (file.filename().string() + ".sum");
}

void write_checked_file(const std::filesystem::path& file, std::string_view bytes) {
  write_file_atomic(file, bytes);
  const nlohmann::json record = {{"crc32", hex8(crc32_of(bytes))}, {"bytes", bytes.size()}};
  write_file_atomic(checksum_path(file), record.dump() + "\n");
}

CheckedBytes read_checked_file(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) throw std::runtime_error("missing");
  CheckedBytes out;
  out.bytes = read_file(file);
  const auto sum = checksum_path(file);
  if (!std::filesystem::exists(sum, ec)) return out;  // previous format: no record
  nlohmann::json record;
  std::string crc;
  std::uint64_t length = 0;
  try {
    record = nlohmann::json::parse(read_file(sum));
    crc = record.at("crc32").get<std::string>();
    length = record.at("bytes").get<std::uint64_t>();
  } catch (const std::exception& e) {
    throw std::runtime_error("its checksum file " + sum.filename().string() + " is malformed (" + e.what() + ")");
  }
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
