// gammalab watch SWEEP: live progress of every job until the sweep has finished. On a terminal a frame sized to
// it (cli/watch_frame.h) is redrawn on the alternate screen, and the final table is left on the normal one;
// otherwise (a pipe, a log file) timestamped progress lines (ProgressLog below) are printed, then the final table.
// A sweep that had finished before watch began gets a few lines of summary instead (finished_summary).
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/exit_status.h"
#include "cli/job_view.h"
#include "cli/terminal_text.h"
#include "cli/watch_frame.h"
#include "core/job_state.h"
#include "proto/convert.h"
#include "proto/dashboard_json.h"

namespace gammalab::cli {
namespace {

std::string clock_now() {
  char clock[16];
  const std::time_t now = std::time(nullptr);
  std::strftime(clock, sizeof clock, "%H:%M:%S", std::localtime(&now));
  return clock;
}

constexpr char kEnterScreen[] = "\x1b[?1049h\x1b[?25l";  // the alternate screen, the cursor hidden
constexpr char kLeaveScreen[] = "\x1b[?25h\x1b[?1049l";

void leave_screen_and_reraise(int signal_number) {
  // Only async-signal-safe calls here: write(2), signal(2), raise(3).
  [[maybe_unused]] const ssize_t n = write(STDOUT_FILENO, kLeaveScreen, sizeof kLeaveScreen - 1);
  std::signal(signal_number, SIG_DFL);
  std::raise(signal_number);
}

// The terminal while `watch` draws on it: the alternate screen, given back on every way out (the sweep's end,
// an error, Ctrl-C, a kill), so the shell finds its screen as it left it.
class AlternateScreen {
 public:
  AlternateScreen() {
    std::signal(SIGINT, leave_screen_and_reraise);
    std::signal(SIGTERM, leave_screen_and_reraise);
    std::signal(SIGHUP, leave_screen_and_reraise);
    std::cout << kEnterScreen << std::flush;
  }
  ~AlternateScreen() {
    std::cout << kLeaveScreen << std::flush;
    std::signal(SIGINT, SIG_DFL);
    std::signal(SIGTERM, SIG_DFL);
    std::signal(SIGHUP, SIG_DFL);
  }
  AlternateScreen(const AlternateScreen&) = delete;
  AlternateScreen& operator=(const AlternateScreen&) = delete;

  // The frame from the top left, each line clearing what an earlier, wider frame left beside it. The terminal's
  // size is asked on every frame, so a resized terminal gets a frame of its new size at the next update.
  static void draw(const std::vector<std::string>& frame) {
    std::string out = "\x1b[H";
    for (const auto& line : frame) out += line + "\x1b[K\n";
    std::cout << out << "\x1b[J" << std::flush;
  }
};

}  // namespace

void add_watch_command(CLI::App& app, CliContext& context) {
  auto sweep = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("watch", "follow a sweep live; exits when it has finished (3 if a job failed)");
  cmd->footer(examples({
                       "gammalab watch 3",
                       "gammalab watch 3 || echo \"exit $?: 3 means a job failed\""}));
  cmd->add_option("sweep", *sweep, "sweep id or name")->required();
  cmd->callback([sweep, &context] {
    auto stub = connect_coordinator(context.server);
    grpc::ClientContext rpc;  // no deadline: a sweep may run for days
    v1::WatchSweepRequest request;
    request.set_sweep_id(*sweep);
    auto reader = stub->WatchSweep(&rpc, request);
    const bool tty = isatty(STDOUT_FILENO) && !context.json;
    const bool colour = tty && colour_wanted(STDOUT_FILENO);
    v1::SweepUpdate update;
    ProgressLog progress_log;
    bool any = false;
    bool followed = false;  // a round was shown while the sweep ran; else it had finished before watch began
    std::optional<AlternateScreen> screen;
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
        // One JSON object per update: the sweep, the jobs that changed in the HTTP API's shape (states spelt
        // "running", proto/dashboard_json.h), and whether the round is complete.
        nlohmann::ordered_json out;
        out["sweep"] = nlohmann::ordered_json::parse(proto_to_json(update.sweep()));
        out["jobs"] = nlohmann::ordered_json::array();
        for (const v1::Job& job : update.jobs()) out["jobs"].push_back(dashboard_job(job));
        out["complete"] = update.complete();
        std::cout << out.dump() << std::endl;
        continue;
      }
      if (!update.complete()) continue;
      if (update.sweep().finished()) continue;  // the final table goes to the normal screen, below
      followed = true;
      if (!tty) {
        std::cout << progress_log.next(update.sweep(), jobs, clock_now()) << std::flush;
        continue;
      }
      if (!screen) screen.emplace();
      AlternateScreen::draw(watch_frame(update.sweep(), jobs, terminal_size(STDOUT_FILENO), colour));
    }
    screen.reset();
    if (any && !context.json && update.sweep().finished() && !followed) {
      // Nothing was followed: a summary, not a table of every job (`gammalab jobs` has that).
      std::string text;
      for (const auto& line : finished_summary(update.sweep(), jobs, tty ? terminal_size(STDOUT_FILENO).columns : 0)) {
        text += line + "\n";
      }
      std::cout << text << std::flush;
    } else if (any && !context.json && update.sweep().finished()) {
      // Every job, each line cut to the terminal's width (a pipe gets the whole lines).
      const TerminalSize size = tty ? terminal_size(STDOUT_FILENO) : TerminalSize{1 << 20, 0};
      const TerminalSize all{size.columns, static_cast<int>(jobs.size()) + 5};
      std::string text;
      for (const auto& line : watch_frame(update.sweep(), jobs, all, colour)) text += line + "\n";
      std::cout << text << std::flush;
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
