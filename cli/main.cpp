// gammalab: the command-line client. Every command is added from the one table below (see cli/command.h).
#include <cstdlib>
#include <exception>
#include <iostream>

#include "cli/command.h"
#include "cli/terminal_text.h"

namespace {

using gammalab::cli::CliContext;

// The commands, in the order `gammalab --help` lists them: a study's life from file to result.
constexpr void (*kCommands[])(CLI::App&, CliContext&) = {
    gammalab::cli::add_validate_command, gammalab::cli::add_plan_command,   gammalab::cli::add_submit_command,
    gammalab::cli::add_sweeps_command,   gammalab::cli::add_jobs_command,   gammalab::cli::add_show_command,
    gammalab::cli::add_workers_command,  gammalab::cli::add_watch_command,  gammalab::cli::add_cancel_command,
    gammalab::cli::add_retry_command,    gammalab::cli::add_logs_command,   gammalab::cli::add_tune_command,
    gammalab::cli::add_fit_command,
    gammalab::cli::add_export_command,
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gammalab: run and analyse scale-vector studies"};
  app.require_subcommand(1);
  CliContext context;
  if (const char* env = std::getenv("GAMMALAB_SERVER"); env != nullptr && *env != '\0') context.server = env;
  app.add_option("--server", context.server, "coordinator address (host:port; default $GAMMALAB_SERVER or 127.0.0.1:50051)");
  app.add_flag("--json", context.json, "print JSON instead of tables");
  for (const auto add_command : kCommands) add_command(app, context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "gammalab: " << gammalab::cli::terminal_text(e.what()) << "\n";  // may quote the server
    return 1;
  }
  return context.exit_code;
}
