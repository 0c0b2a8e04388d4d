#pragma once
// `gammalab-server token create|list|revoke`: managing access tokens (server/tokens.h) in the database file,
// also while a coordinator runs on it.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace gammalab {

struct TokenCommand {
  bool requested = false;
  std::string action;  // create | list | revoke
  std::string role;
  std::string name;
  std::string out;  // create: a new 0600 file for the token instead of stdout
  std::int64_t id = 0;
  bool json = false;
};

void add_token_commands(CLI::App& app, TokenCommand& command);
// Runs it on the database at `db_path`; returns the exit code (errors go to stderr).
int run_token_command(const TokenCommand& command, const std::string& db_path);

}  // namespace gammalab
