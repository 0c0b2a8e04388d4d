// gammalab: the command-line client. Commands live one per file (cmd_*.cpp).
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "cli/command.h"

namespace gammalab::cli {

std::vector<RegisteredCommand>& command_table() {
  static std::vector<RegisteredCommand> table;
  return table;
}

CommandRegistration::CommandRegistration(std::string name, CommandSetup setup) {
  command_table().push_back({std::move(name), std::move(setup)});
}

}  // namespace gammalab::cli

int main(int argc, char** argv) {
  using namespace gammalab::cli;
  CLI::App app{"gammalab: run and analyse scale-vector studies"};
  app.require_subcommand(1);
  CliContext context;
  if (const char* env = std::getenv("GAMMALAB_SERVER"); env != nullptr && *env != '\0') context.server = env;
  app.add_option("--server", context.server, "coordinator address (host:port; default $GAMMALAB_SERVER or 127.0.0.1:50051)");
  app.add_flag("--json", context.json, "print JSON instead of tables");
  auto& table = command_table();
  std::sort(table.begin(), table.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& command : table) command.setup(app, context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "gammalab: " << e.what() << "\n";
    return 1;
  }
  return context.exit_code;
}
