#include "core/checkpoint_record.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

namespace gammalab {

std::string checkpoint_record_name(std::string_view file_name) { return std::string(file_name) + ".sum"; }

std::string format_checkpoint_record(const CheckpointRecord& record) {
  return nlohmann::json{{"crc32", record.crc32}, {"bytes", record.bytes}}.dump() + "\n";
}

CheckpointRecord parse_checkpoint_record(std::string_view text, std::string_view name) {
  CheckpointRecord record;
  try {
    const nlohmann::json json = nlohmann::json::parse(text);
    record.crc32 = json.at("crc32").get<std::string>();
    record.bytes = json.at("bytes").get<std::uint64_t>();
  } catch (const std::exception& e) {
    throw std::runtime_error("its checksum file " + std::string(name) + " is malformed (" + e.what() + ")");
  }
  return record;
}

}  // namespace gammalab
