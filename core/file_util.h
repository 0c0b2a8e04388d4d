#pragma once
// Whole-file reads, and crash-safe replacement: write a temp file in the same directory, fsync, rename,
// fsync the directory.
#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace gammalab {

void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);
void fsync_directory(const std::filesystem::path& dir);
std::string read_file(const std::filesystem::path& path);
// At most `limit` bytes of a file named by a command-line `flag` (a token, a certificate): a file over the
// limit is refused before more than limit + 1 bytes are read. Throws std::invalid_argument naming the flag,
// the path and the limit.
std::string read_file_bounded(const std::string& flag, const std::filesystem::path& path, std::size_t limit);

}  // namespace gammalab
