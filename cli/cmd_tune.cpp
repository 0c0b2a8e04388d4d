// gammalab tune SWEEP: the tune stage of a sweep (core/sweep/tune.h): how far it is, the loss of every value
// tried per group, and the values the main stage runs with.
#include <iostream>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/exit_status.h"
#include "cli/tune_view.h"
#include "core/job_stage.h"
#include "core/job_state.h"
#include "proto/convert.h"

namespace gammalab::cli {

void add_tune_command(CLI::App& app, CliContext& context) {
  auto sweep_id = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("tune", "show a sweep's tune stage: loss against value per group, and the pick");
  cmd->footer(examples({
                       "gammalab tune 3"}));
  cmd->add_option("sweep", *sweep_id, "sweep id or name")->required();
  cmd->callback([sweep_id, &context] {
    auto stub = connect_coordinator(context.server);
    v1::GetSweepRequest get;
    get.set_sweep_id(*sweep_id);
    v1::Sweep sweep;
    check(stub->GetSweep(rpc_context().get(), get, &sweep), "sweep " + *sweep_id, context.server);
    int tune_jobs = 0, ended = 0;
    for (const auto& job : list_all_jobs(*stub, sweep.id(), {}, context.server)) {
      if (job.stage() != job_stage::kTune) continue;
      ++tune_jobs;
      const auto state = from_proto(job.state());
      if (state && is_terminal(*state)) ++ended;
    }
    if (context.json) {
      nlohmann::json out = {{"sweep", sweep.id()},           {"tune_jobs", tune_jobs},
                            {"ended", ended},                {"awaiting_main_stage", sweep.awaiting_main_stage()},
                            {"stage_error", sweep.stage_error()}};
      if (!sweep.tune_report_json().empty()) out["picks"] = nlohmann::json::parse(sweep.tune_report_json());
      std::cout << out.dump(2) << "\n";
      return;
    }
    if (tune_jobs == 0) {
      std::cout << "sweep " << sweep.id() << " (" << sweep.name() << ") has no tune stage\n";
      return;
    }
    std::cout << "sweep " << sweep.id() << " (" << sweep.name() << "): tune stage " << ended << " of " << tune_jobs
              << " jobs ended" << (sweep.awaiting_main_stage() ? "; the main stage starts when all have" : "")
              << "\n\n";
    if (!sweep.tune_report_json().empty()) {
      std::cout << tune_picks_text(tune_picks_from_json(nlohmann::json::parse(sweep.tune_report_json())));
    }
    if (!sweep.stage_error().empty()) {
      std::cout << "no main stage: " << sweep.stage_error() << "\n";
      context.exit_code = exit_status::kError;
    }
  });
}

}  // namespace gammalab::cli
