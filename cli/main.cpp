// gammalab: the command-line client. Every command is added from the one table below (see cli/command.h).
// Conventions: global options go before or after the command; the exit status is one of cli/exit_status.h;
// under --json an error is a JSON object on stderr too.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/exit_status.h"
#include "cli/help_format.h"
#include "cli/terminal_text.h"
#include "core/edit_distance.h"
#include "rpc/client_channel.h"

namespace {

using gammalab::cli::CliContext;

// The commands, in the order `gammalab --help` lists them: a study's life from file to result.
constexpr void (*kCommands[])(CLI::App&, CliContext&) = {
    gammalab::cli::add_validate_command, gammalab::cli::add_plan_command,   gammalab::cli::add_submit_command,
    gammalab::cli::add_import_command,
    gammalab::cli::add_sweeps_command,   gammalab::cli::add_jobs_command,   gammalab::cli::add_show_command,
    gammalab::cli::add_workers_command,  gammalab::cli::add_watch_command,  gammalab::cli::add_cancel_command,
    gammalab::cli::add_retry_command,    gammalab::cli::add_logs_command,   gammalab::cli::add_tune_command,
    gammalab::cli::add_fit_command,
    gammalab::cli::add_note_command,     gammalab::cli::add_tag_command,    gammalab::cli::add_search_command,
    gammalab::cli::add_alerts_command,
    gammalab::cli::add_export_command,   gammalab::cli::add_report_command,
    gammalab::cli::add_completion_command,  // last: its script lists the commands above
};

// An error as the user asked to read output: a line of text, or under --json an object a script can parse.
int report_error(bool json, int status, std::string_view kind, const std::string& message) {
  if (json) {
    std::cerr << nlohmann::json{{"error", {{"kind", kind}, {"exit_status", status}, {"message", message}}}}.dump()
              << "\n";
  } else {
    std::cerr << "gammalab: " << gammalab::cli::terminal_text(message) << "\n";  // may quote the server
  }
  return status;
}

// Whether --json is on the command line, for an error found before the options were all read.
bool json_requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--json") return true;
  }
  return false;
}

// The first word on the command line that is neither a global option nor its value, when it names no command:
// CLI11 would only say "A subcommand is required". Empty when the command is known or none is given.
std::string unknown_command(CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return "";
    if (arg.starts_with("-")) {
      // The global options that take a value as the next word; every other option is a flag or --opt=value.
      if (arg == "--server" || arg == "--token-file" || arg == "--tls-ca") ++i;
      continue;
    }
    std::vector<std::string> names;
    for (const CLI::App* command : app.get_subcommands({})) {
      if (command->check_name(std::string(arg))) return "";
      names.push_back(command->get_name());
    }
    return "'" + gammalab::cli::terminal_text(std::string(arg)) + "' is not a command" +
           gammalab::did_you_mean(std::string(arg), names) + "; gammalab --help lists them";
  }
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  namespace exit_status = gammalab::cli::exit_status;
  CLI::App app{"gammalab: run and analyse scale-vector studies"};
  // Before any command is added: a command takes its parent's formatter when it is made.
  app.formatter(std::make_shared<gammalab::cli::WrappingHelpFormatter>(gammalab::cli::help_columns()));
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("gammalab ") + GAMMALAB_VERSION + " (commit " + GAMMALAB_COMMIT + ")");
  // Global options are accepted after the command too (`gammalab jobs 3 --json`): each command passes the
  // options it does not know up to this app.
  app.fallthrough();
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
  if (const std::string unknown = unknown_command(app, argc, argv); !unknown.empty()) {
    return report_error(json_requested(argc, argv), exit_status::kUsage, "usage", unknown);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version: printed, and not an error
  } catch (const CLI::ParseError& e) {
    if (!json_requested(argc, argv)) {
      app.exit(e);  // CLI11's message and the usage hint
      return exit_status::kUsage;
    }
    return report_error(true, exit_status::kUsage, "usage", e.what());
  } catch (const std::exception& e) {
    return report_error(context.json, exit_status::kError, "error", e.what());
  }
  return context.exit_code;
}
