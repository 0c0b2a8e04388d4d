// gammalab watch SWEEP: live progress of every job until the sweep has finished. On a terminal the progress
// table is redrawn in place; otherwise (a pipe, a log file) each job's state changes are printed as timestamped
// lines, then the final table.
#include <unistd.h>

#include <ctime>
#include <iostream>
#include <map>
#include <optional>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/exit_status.h"
#include "cli/job_view.h"
#include "cli/terminal_text.h"
#include "core/job_state.h"
#include "proto/convert.h"

namespace gammalab::cli {
namespace {

// "12:34:56 NAME: running -> succeeded (step 200/200, loss 2.3456)" for every job whose state differs from
// `seen` (first sight: just the state); updates `seen`.
std::string state_changes(const std::vector<v1::Job>& jobs, std::map<std::string, v1::JobState>& seen) {
  std::string out;
  char clock[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(clock, sizeof clock, "%H:%M:%S", std::localtime(&now));
  for (const auto& j : jobs) {
    auto it = seen.find(j.id());
    if (it != seen.end() && it->second == j.state()) continue;
    std::string line = std::string(clock) + " " + j.name() + ": ";
    if (it != seen.end()) line += state_label(it->second) + " -> ";
    line += state_label(j.state());
    const std::optional<JobState> state = from_proto(j.state());
    if (state && is_active(*state) && !j.worker_id().empty()) {
      line += " (worker " + j.worker_id() + ", attempt " + std::to_string(j.attempt()) + ")";
    } else if (state == JobState::kFailed && !j.error().empty()) {
      line += ": " + j.error();
    } else if (j.total_steps() > 0 && j.step() > 0) {
      line += " (step " + std::to_string(j.step()) + "/" + std::to_string(j.total_steps());
      if (j.has_loss()) line += ", loss " + std::to_string(j.last_loss());
      line += ")";
    }
    out += line + "\n";
    seen[j.id()] = j.state();
  }
  return terminal_text(out);
}

}  // namespace

void add_watch_command(CLI::App& app, CliContext& context) {
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
    std::map<std::string, v1::JobState> seen;
    bool any = false;
    // Updates carry the jobs that changed (see SweepUpdate in the proto): the sweep's jobs, kept here in the
    // order first sent, are drawn once a round is complete.
    std::vector<v1::Job> jobs;
    std::map<std::string, std::size_t> index;
    while (reader->Read(&update)) {
      any = true;
      for (const v1::Job& job : update.jobs()) {
        auto [it, added] = index.emplace(job.id(), jobs.size());
        if (added) {
          jobs.push_back(job);
        } else {
          jobs[it->second] = job;
        }
      }
      if (context.json) {
        std::cout << proto_to_json(update) << std::endl;  // one JSON object per update: the changed jobs
        continue;
      }
      if (!update.complete()) continue;
      std::string frame = "sweep " + update.sweep().id() + " '" + update.sweep().name() + "'\n" + progress_lines(jobs);
      if (tty && lines_drawn > 0) std::cout << "\x1b[" << lines_drawn << "A\x1b[J";  // redraw in place
      if (!tty) std::cout << state_changes(jobs, seen) << std::flush;
      if (tty || update.sweep().finished()) std::cout << frame << std::flush;
      lines_drawn = static_cast<std::size_t>(std::count(frame.begin(), frame.end(), '\n'));
    }
    check(reader->Finish(), "watch " + *sweep, context.server);
    if (!any) return;
    int failed = 0;
    for (const auto& j : jobs) failed += from_proto(j.state()) == JobState::kFailed ? 1 : 0;
    if (!update.sweep().finished()) {
      std::cerr << "watch: stream ended before the sweep finished\n";
      context.exit_code = exit_status::kError;
    } else if (failed > 0) {
      std::cerr << failed << " job(s) failed; see `gammalab show JOB` and `gammalab logs JOB`\n";
      context.exit_code = exit_status::kJobFailed;
    }
  });
}

}  // namespace gammalab::cli
