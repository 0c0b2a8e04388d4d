#include "worker/trainer/data/data_shard.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/file_util.h"

namespace gammalab::trainer {

void write_shard(const std::filesystem::path& path, std::span<const std::uint32_t> tokens) {
  const bool wide = std::any_of(tokens.begin(), tokens.end(), [](std::uint32_t t) { return t > 0xFFFF; });
  std::int32_t header[256] = {};
  header[0] = wide ? kShardMagicU32 : kShardMagicU16;
  header[1] = wide ? 7 : 1;  // llm.c's versions for the two token widths
  header[2] = static_cast<std::int32_t>(tokens.size());
  std::string bytes(reinterpret_cast<const char*>(header), sizeof(header));
  if (wide) {
    bytes.append(reinterpret_cast<const char*>(tokens.data()), tokens.size() * 4);
  } else {
    std::vector<std::uint16_t> narrow(tokens.begin(), tokens.end());
    bytes.append(reinterpret_cast<const char*>(narrow.data()), narrow.size() * 2);
  }
  write_file_atomic(path, bytes);
}

TokenShard::TokenShard(const std::filesystem::path& path) : path_(path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error("cannot open token shard " + path.string() + ": " + std::strerror(errno));
  struct stat st {};
  ::fstat(fd, &st);
  map_size_ = static_cast<std::size_t>(st.st_size);
  if (map_size_ < 1024) {
    ::close(fd);
    throw std::runtime_error(path.string() + ": too short for a token shard header");
  }
  map_ = ::mmap(nullptr, map_size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (map_ == MAP_FAILED) {
    map_ = nullptr;
    throw std::runtime_error("cannot map " + path.string());
  }
  const auto* header = static_cast<const std::int32_t*>(map_);
  if (header[0] != kShardMagicU16 && header[0] != kShardMagicU32) {
    // The file's bytes are never quoted: the path may name a file the job's author should not read.
    throw std::runtime_error(path.string() + ": not an llm.c .bin token shard (wrong magic number)");
  }
  wide_ = header[0] == kShardMagicU32;
  count_ = static_cast<std::uint32_t>(header[2]);
  const std::size_t need = 1024 + static_cast<std::size_t>(count_) * (wide_ ? 4 : 2);
  if (map_size_ < need) {
    throw std::runtime_error(path.string() + ": its header's token count runs past the end of the file");
  }
  data_ = static_cast<const unsigned char*>(map_) + 1024;
}

TokenShard::~TokenShard() {
  if (map_ != nullptr) ::munmap(map_, map_size_);
}

std::uint32_t TokenShard::max_token() const {
  std::uint32_t m = 0;
  for (std::int64_t i = 0; i < count_; ++i) m = std::max(m, (*this)[i]);
  return m;
}

std::vector<std::filesystem::path> shard_files(const std::filesystem::path& path) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(path)) {
    for (const auto& e : std::filesystem::directory_iterator(path)) {
      if (e.is_regular_file() && e.path().extension() == ".bin") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    if (files.empty()) throw DataUnavailable("no .bin shards in " + path.string());
  } else {
    if (!std::filesystem::exists(path)) throw DataUnavailable("token shard not found: " + path.string());
    files.push_back(path);
  }
  return files;
}

}  // namespace gammalab::trainer
