#pragma once
// Files that hold secrets or everyone's data (the database and its WAL, backups, a new token) are made
// readable by their owner only (0600), whatever the umask of whoever started the process: a world-readable
// database or token file under umask 022 would hand both to every local user. SQLite gives its WAL and
// shared-memory files the mode of the database file, so making that one right makes all three right.
#include <filesystem>
#include <string_view>

namespace gammalab {

// Creates `path` empty with mode 0600 when it does not exist (not following a link there); leaves an existing
// file as it is. Throws std::runtime_error naming the path when it cannot.
void create_private_file(const std::filesystem::path& path);

// Writes `content` to a new file `path` with mode 0600; refuses (std::runtime_error naming the path) when
// something, a link included, is there already.
void write_new_private_file(const std::filesystem::path& path, std::string_view content);

}  // namespace gammalab
