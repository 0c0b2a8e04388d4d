#pragma once
// Whole-file reads, and crash-safe replacement: write a temp file in the same directory, fsync, rename,
// fsync the directory.
#include <filesystem>
#include <string>
#include <string_view>

namespace gammalab {

void write_file_atomic(const std::filesystem::path& path, std::string_view bytes);
void fsync_directory(const std::filesystem::path& dir);
std::string read_file(const std::filesystem::path& path);

}  // namespace gammalab
