// gammalab watch SWEEP: live progress of every job until the sweep has finished.
#include <unistd.h>

#include <iostream>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/job_view.h"

namespace gammalab::cli {
namespace {

CommandRegistration watch("watch", [](CLI::App& app, CliContext& context) {
  auto sweep = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("watch", "follow a sweep live; exits when it has finished (1 if a job failed)");
  cmd->add_option("sweep", *sweep, "sweep id or name")->required();
  cmd->callback([sweep, &context] {
    auto stub = connect_coordinator(context.server);
    grpc::ClientContext rpc;  // no deadline: a sweep may run for days
    v1::WatchSweepRequest request;
    request.set_sweep_id(*sweep);
    auto reader = stub->WatchSweep(&rpc, request);
    const bool tty = isatty(STDOUT_FILENO) && !context.json;
    v1::SweepUpdate update;
    std::size_t lines_drawn = 0;
    bool any = false;
    while (reader->Read(&update)) {
      any = true;
      std::vector<v1::Job> jobs(update.jobs().begin(), update.jobs().end());
      if (context.json) {
        std::cout << proto_to_json(update) << std::endl;  // one JSON object per update
        continue;
      }
      std::string frame = "sweep " + update.sweep().id() + " '" + update.sweep().name() + "'\n" + progress_lines(jobs);
      if (tty && lines_drawn > 0) std::cout << "\x1b[" << lines_drawn << "A\x1b[J";  // redraw in place
      if (tty || update.sweep().finished()) std::cout << frame << std::flush;
      lines_drawn = static_cast<std::size_t>(std::count(frame.begin(), frame.end(), '\n'));
    }
    check(reader->Finish(), "watch " + *sweep, context.server);
    if (!any) return;
    int failed = 0;
    for (const auto& j : update.jobs()) failed += j.state() == v1::JOB_STATE_FAILED ? 1 : 0;
    if (!update.sweep().finished()) {
      std::cerr << "watch: stream ended before the sweep finished\n";
      context.exit_code = 1;
    } else if (failed > 0) {
      std::cerr << failed << " job(s) failed; see `gammalab show JOB` and `gammalab logs JOB`\n";
      context.exit_code = 1;
    }
  });
});

}  // namespace
}  // namespace gammalab::cli
