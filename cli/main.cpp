// gammalab: the command-line client. Every command is added from the one table below (see cli/command.h).
#include <cstdlib>
#include <exception>
#include <iostream>

#include "cli/command.h"
#include "cli/terminal_text.h"
#include "rpc/client_channel.h"

namespace {

using gammalab::cli::CliContext;

// The commands, in the order `gammalab --help` lists them: a study's life from file to result.
constexpr void (*kCommands[])(CLI::App&, CliContext&) = {
    gammalab::cli::add_validate_command, gammalab::cli::add_plan_command,   gammalab::cli::add_submit_command,
    gammalab::cli::add_sweeps_command,   gammalab::cli::add_jobs_command,   gammalab::cli::add_show_command,
    gammalab::cli::add_workers_command,  gammalab::cli::add_watch_command,  gammalab::cli::add_cancel_command,
    gammalab::cli::add_retry_command,    gammalab::cli::add_logs_command,   gammalab::cli::add_tune_command,
    gammalab::cli::add_fit_command,
    gammalab::cli::add_export_command,   gammalab::cli::add_report_command,
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"gammalab: run and analyse scale-vector studies"};
  app.require_subcommand(1);
  CliContext context;
  if (const char* env = std::getenv("GAMMALAB_SERVER"); env != nullptr && *env != '\0') context.server = env;
  app.add_option("--server", context.server, "coordinator address (host:port; default $GAMMALAB_SERVER or 127.0.0.1:50051)");
  app.add_flag("--json", context.json, "print JSON instead of tables");
  std::string token_file, tls_ca;
  app.add_option("--token-file", token_file, "file holding a user token (default: $GAMMALAB_TOKEN)");
  app.add_option("--tls-ca", tls_ca, "connect with TLS, trusting this CA certificate (PEM)");
  // Read before any command runs (a parse callback), so a command always connects with them.
  app.parse_complete_callback([&] { gammalab::set_default_client_security(gammalab::client_security(token_file, tls_ca)); });
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
