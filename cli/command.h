#pragma once
// The CLI's commands. Each add_*_command adds one subcommand (its options and callback) to the app; main.cpp
// lists them all in one table, in the order `gammalab --help` shows them. Commands that belong together share a
// file: cmd_submit/validate/plan (sweep files), cmd_list (sweeps, jobs, show, workers), cmd_control (cancel,
// retry, logs), cmd_annotate (note, tag, search), cmd_import, cmd_watch, cmd_fit, cmd_export, cmd_report, cmd_completion.
#include <initializer_list>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/client/coordinator_client.h"
#include "cli/job_view.h"

namespace gammalab::cli {

struct CliContext {
  std::string server = "127.0.0.1:50051";  // --server (or $GAMMALAB_SERVER)
  bool json = false;                       // --json: machine-readable output
  int exit_code = 0;                       // set by a command that fails without throwing
};

// The "Examples:" footer of a command's --help: one command line per entry, each runnable as written (a
// trailing "# ..." says what it does).
inline std::string examples(std::initializer_list<std::string_view> lines) {
  std::string out = "\nExamples:\n";
  for (std::string_view line : lines) out.append("  ").append(line).append("\n");
  return out;
}

// The workers' names by id for the WORKER column of `jobs`, `show` and `watch` (cli/job_view.h); none when the
// coordinator will not list its workers to this caller, and the column then shows ids: a view's nicety must not
// fail the command. In cmd_list.cpp.
WorkerNames known_worker_names(v1::Coordinator::Stub& stub, const std::string& address);

void add_validate_command(CLI::App& app, CliContext& context);  // cmd_validate.cpp
void add_plan_command(CLI::App& app, CliContext& context);      // cmd_plan.cpp
void add_submit_command(CLI::App& app, CliContext& context);    // cmd_submit.cpp
void add_import_command(CLI::App& app, CliContext& context);    // cmd_import.cpp
void add_sweeps_command(CLI::App& app, CliContext& context);    // cmd_list.cpp
void add_jobs_command(CLI::App& app, CliContext& context);      // cmd_list.cpp
void add_show_command(CLI::App& app, CliContext& context);      // cmd_list.cpp
void add_workers_command(CLI::App& app, CliContext& context);   // cmd_list.cpp
void add_watch_command(CLI::App& app, CliContext& context);     // cmd_watch.cpp
void add_cancel_command(CLI::App& app, CliContext& context);    // cmd_control.cpp
void add_retry_command(CLI::App& app, CliContext& context);     // cmd_control.cpp
void add_logs_command(CLI::App& app, CliContext& context);      // cmd_control.cpp
void add_tune_command(CLI::App& app, CliContext& context);      // cmd_tune.cpp
void add_note_command(CLI::App& app, CliContext& context);      // cmd_annotate.cpp
void add_tag_command(CLI::App& app, CliContext& context);       // cmd_annotate.cpp
void add_search_command(CLI::App& app, CliContext& context);    // cmd_annotate.cpp
void add_alerts_command(CLI::App& app, CliContext& context);    // cmd_alerts.cpp
void add_fit_command(CLI::App& app, CliContext& context);       // cmd_fit.cpp
void add_export_command(CLI::App& app, CliContext& context);    // cmd_export.cpp
void add_report_command(CLI::App& app, CliContext& context);    // cmd_report.cpp
void add_completion_command(CLI::App& app, CliContext& context);  // cmd_completion.cpp: reads every other command

}  // namespace gammalab::cli
