#pragma once
// The CLI's command table. Each cmd_*.cpp adds its subcommand with a static CommandRegistration:
//   static CommandRegistration reg("plan", [](CLI::App& app, CliContext& ctx) { ... });
// The callback adds the subcommand (options, callback) to `app`; main() runs the chosen one.
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace gammalab::cli {

struct CliContext {
  std::string server = "127.0.0.1:50051";  // --server (or $GAMMALAB_SERVER)
  bool json = false;                       // --json: machine-readable output
  int exit_code = 0;                       // set by a command that fails without throwing
};

using CommandSetup = std::function<void(CLI::App& app, CliContext& context)>;

struct CommandRegistration {
  CommandRegistration(std::string name, CommandSetup setup);
};

struct RegisteredCommand {
  std::string name;
  CommandSetup setup;
};
std::vector<RegisteredCommand>& command_table();

}  // namespace gammalab::cli
