// gammalab submit FILE: validate and expand a sweep on the coordinator, which queues its jobs.
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/exit_status.h"
#include "cli/job_view.h"
#include "cli/terminal_text.h"
#include "core/file_util.h"
#include "core/sweep/sweep.h"

namespace gammalab::cli {
namespace {

struct SubmitArgs {
  std::string file;
  bool rerun = false;
};

}  // namespace

void add_submit_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<SubmitArgs>();
  auto* cmd = app.add_subcommand("submit", "submit a sweep file; prints the new sweep's id");
  cmd->footer(examples({
                       "gammalab submit configs/sweeps/demo-cpu.yaml",
                       "gammalab submit study.yaml --rerun   # run jobs a finished job matches, too"}));
  cmd->add_option("file", args->file, "sweep YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_flag("--rerun", args->rerun, "run every job, even those whose config already ran to completion");
  cmd->callback([args, &context] {
    v1::SubmitSweepRequest request;
    request.set_yaml(read_file(args->file));
    request.set_file_name(args->file);
    request.set_rerun(args->rerun);
    v1::SubmitSweepResponse response;
    auto stub = connect_coordinator(context.server);
    check(stub->SubmitSweep(rpc_context().get(), request, &response), "submit " + args->file, context.server);
    if (response.problems_size() > 0) {
      if (context.json) {
        std::cout << proto_to_json(response) << "\n";
      } else {
        std::string text;
        for (const v1::SweepProblem& p : response.problems()) {
          text += SweepDiagnostic{p.file(), p.line(), p.column(), p.path(), p.message()}.to_string() + "\n";
        }
        if (response.problems_omitted() > 0) {
          text += "... and " + std::to_string(response.problems_omitted()) +
                  " more problem(s); `gammalab validate FILE` lists them all\n";
        }
        std::cerr << terminal_text(text);
      }
      std::cerr << "submit " << terminal_text(args->file) << ": refused by the coordinator ("
                << response.problems_size() + response.problems_omitted() << " problem(s))\n";
      context.exit_code = exit_status::kError;
      return;
    }
    if (context.json) {
      std::cout << proto_to_json(response) << "\n";
    } else {
      std::cout << terminal_text("sweep " + response.sweep().id() + " '" + response.sweep().name() + "': " +
                                 std::to_string(response.jobs_created()) + " job(s) queued, " +
                                 std::to_string(response.jobs_reused()) + " reused from earlier runs\n");
    }
  });
}

}  // namespace gammalab::cli
