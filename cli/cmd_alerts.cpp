// gammalab alerts [SWEEP]: what the coordinator raised when a run needed a look (core/alert.h, docs/alerts.md),
// newest first; --follow keeps printing new ones as they are raised.
#include <chrono>
#include <iostream>
#include <thread>

#include "absl/time/time.h"

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/table.h"
#include "cli/terminal.h"
#include "proto/proto_json.h"

namespace gammalab::cli {
namespace {

struct AlertsArgs {
  std::string sweep;
  int limit = 20;
  bool follow = false;
};

// UTC, ISO 8601 to the second (as the report's generated_at).
std::string utc_text(std::int64_t ms) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::FromUnixMillis(ms), absl::UTCTimeZone());
}

// At 80 columns the time, the sweep, the attempt and the step give way first; the run and what happened stay,
// cut in the middle when they must be.
std::string alerts_table(const std::vector<v1::Alert>& alerts) {
  TextTable table({{"RAISED (UTC)", TextTable::Align::kLeft, 3}, {"SWEEP", TextTable::Align::kRight, 4},
                   {"JOB", TextTable::Align::kRight}, {"RUN", TextTable::Align::kLeft, 0, true},
                   {"TRY", TextTable::Align::kRight, 5}, {"RULE"}, {"STEP", TextTable::Align::kRight, 1},
                   {"WHAT", TextTable::Align::kLeft, 0, true}});
  for (const v1::Alert& a : alerts) {
    table.add_row({utc_text(a.raised_ms()), a.sweep_id(), a.job_id(), a.job_name(), std::to_string(a.attempt()),
                   a.rule(), a.has_step() ? std::to_string(a.step()) : "", a.message()});
  }
  return table.render_fitted(output_columns());
}

}  // namespace

void add_alerts_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<AlertsArgs>();
  auto* cmd = app.add_subcommand("alerts", "runs that need a look: diverged, loss spikes, stalls, lost workers");
  cmd->footer(examples({
                       "gammalab alerts                 # every sweep's, newest first",
                       "gammalab alerts 3 --follow      # sweep 3's, and new ones as they come"}));
  cmd->add_option("sweep", args->sweep, "a sweep's id or name (default: every sweep)");
  cmd->add_option("--limit", args->limit, "at most this many, newest first")
      ->capture_default_str()
      ->check(CLI::Range(1, 200));
  cmd->add_flag("--follow", args->follow, "then print each new alert as it is raised (Ctrl-C ends)");
  cmd->callback([args, &context] {
    auto stub = connect_coordinator(context.server);
    v1::ListAlertsRequest request;
    request.set_sweep_id(args->sweep);
    request.set_limit(args->limit);
    v1::ListAlertsResponse response;
    check(stub->ListAlerts(rpc_context().get(), request, &response), "alerts", context.server);
    if (context.json) {
      std::cout << proto_to_json(response) << "\n";
    } else if (response.alerts().empty()) {
      std::cout << (args->sweep.empty() ? "no alerts" : "no alerts in sweep " + args->sweep) << "\n";
    } else {
      std::cout << alerts_table({response.alerts().rbegin(), response.alerts().rend()});  // oldest first, newest last
      if (response.truncated()) std::cout << "(the newest " << response.alerts_size() << "; --limit shows more)\n";
    }
    if (!args->follow) return;
    std::int64_t cursor = response.alerts().empty() ? 0 : response.alerts(0).id();
    while (true) {
      std::this_thread::sleep_for(std::chrono::seconds(2));
      request.set_after_id(cursor);
      request.set_limit(0);
      response.Clear();
      check(stub->ListAlerts(rpc_context().get(), request, &response), "alerts", context.server);
      for (auto it = response.alerts().rbegin(); it != response.alerts().rend(); ++it) {
        std::cout << (context.json ? proto_to_json(*it) + "\n" : alerts_table({*it})) << std::flush;
      }
      if (!response.alerts().empty()) cursor = response.alerts(0).id();
    }
  });
}

}  // namespace gammalab::cli
