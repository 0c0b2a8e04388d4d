#pragma once
// Token shards in llm.c's .bin format: a header of 256 int32 (magic 20240520 with uint16 tokens or 20240801
// with uint32 tokens; version; token count) followed by the tokens. Shards are memory-mapped.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace gammalab::trainer {

constexpr std::int32_t kShardMagicU16 = 20240520;
constexpr std::int32_t kShardMagicU32 = 20240801;

// Writes a shard (uint16 when every token fits, else uint32), atomically (temp name + rename).
void write_shard(const std::filesystem::path& path, std::span<const std::uint32_t> tokens);

// A data path that cannot be opened: no such file, or a folder without shards. A retry on the same worker
// cannot succeed (the trainer exits with exit_codes::kDataUnavailable).
class DataUnavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class TokenShard {
 public:
  explicit TokenShard(const std::filesystem::path& path);  // throws std::runtime_error on a malformed file
  ~TokenShard();
  TokenShard(const TokenShard&) = delete;
  TokenShard& operator=(const TokenShard&) = delete;

  std::int64_t size() const { return count_; }
  std::uint32_t operator[](std::int64_t i) const {
    return wide_ ? reinterpret_cast<const std::uint32_t*>(data_)[i] : reinterpret_cast<const std::uint16_t*>(data_)[i];
  }
  std::uint32_t max_token() const;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  const unsigned char* data_ = nullptr;
  std::int64_t count_ = 0;
  bool wide_ = false;
};

// A .bin file, or every .bin file of a directory (sorted by name).
std::vector<std::filesystem::path> shard_files(const std::filesystem::path& path);

}  // namespace gammalab::trainer
