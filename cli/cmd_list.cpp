// gammalab sweeps | jobs SWEEP | show JOB | workers: what the coordinator knows.
#include <absl/strings/str_join.h>
#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/job_view.h"
#include "cli/terminal.h"
#include "cli/terminal_text.h"
#include "proto/dashboard_json.h"

namespace gammalab::cli {

WorkerNames known_worker_names(v1::Coordinator::Stub& stub, const std::string& address) {
  try {
    return worker_names(list_all_workers(stub, address));
  } catch (const RpcError&) {
    return {};
  }
}

void add_sweeps_command(CLI::App& app, CliContext& context) {
  auto* cmd = app.add_subcommand("sweeps", "list sweeps with their job counts");
  cmd->footer(examples({
                       "gammalab sweeps",
                       "gammalab sweeps --json"}));
  cmd->callback([&context] {
    auto stub = connect_coordinator(context.server);
    std::vector<v1::Sweep> list;
    v1::ListSweepsRequest request;
    do {  // page by page: a reply is bounded, the number of sweeps is not
      v1::ListSweepsResponse page;
      check(stub->ListSweeps(rpc_context().get(), request, &page), "sweeps", context.server);
      for (auto& sweep : *page.mutable_sweeps()) list.push_back(std::move(sweep));
      request.set_page_token(page.next_page_token());
    } while (!request.page_token().empty());
    std::cout << (context.json ? to_json_array(list) + "\n" : sweeps_table(list));
  });
}

void add_jobs_command(CLI::App& app, CliContext& context) {
  auto sweep = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("jobs", "list a sweep's jobs: state, step, last loss");
  cmd->footer(examples({
                       "gammalab jobs 3",
                       "gammalab jobs demo-cpu --json"}));
  cmd->add_option("sweep", *sweep, "sweep id or name")->required();
  cmd->callback([sweep, &context] {
    auto stub = connect_coordinator(context.server);
    const std::vector<v1::Job> list = list_all_jobs(*stub, *sweep, {}, context.server);
    if (!context.json) {
      std::cout << jobs_table(list, known_worker_names(*stub, context.server), output_columns());
      return;
    }
    // The HTTP API's shape (proto/dashboard_json.h): states spelt "running", as everywhere else.
    nlohmann::ordered_json jobs = nlohmann::ordered_json::array();
    for (const v1::Job& job : list) jobs.push_back(dashboard_job(job));
    std::cout << jobs.dump(2) << "\n";
  });
}

void add_show_command(CLI::App& app, CliContext& context) {
  auto job_id = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("show", "show one job: state, attempts, error and resolved config");
  cmd->footer(examples({
                       "gammalab show 42",
                       "gammalab show demo-cpu/tiny-2x16/baseline/adamw/cosine/s0"}));
  cmd->add_option("job", *job_id, "job id, or SWEEP/JOB-NAME")->required();
  cmd->callback([job_id, &context] {
    v1::GetJobRequest request;
    request.set_job_id(*job_id);
    v1::Job job;
    auto stub = connect_coordinator(context.server);
    check(stub->GetJob(rpc_context().get(), request, &job), "show " + *job_id, context.server);
    if (context.json) {
      std::cout << dashboard_job(job).dump(2) << "\n";
      return;
    }
    std::cout << jobs_table({job}, known_worker_names(*stub, context.server));
    std::string details = "\nconfig hash: " + job.config_hash() + "  attempts: " + std::to_string(job.attempt()) +
                          "/" + std::to_string(job.max_attempts()) + "  priority: " + std::to_string(job.priority()) +
                          "\n";
    if (!job.reused_from().empty()) details += "results reused from job " + job.reused_from() + "\n";
    // Cooldown branches (docs/branches.md): the family a job belongs to.
    if (!job.parent_id().empty()) {
      details += "cooldown branch of job " + job.parent_id() + ", from its checkpoint at step " +
                 std::to_string(job.branch_step()) +
                 (job.branch_start_job_id().empty() || job.branch_start_job_id() == job.parent_id()
                      ? ""
                      : " (written by job " + job.branch_start_job_id() + ", whose results it reuses)") +
                 "\n";
    }
    if (job.branch_points_size() > 0) {
      details += "branch points (kept checkpoints): " + absl::StrJoin(job.branch_points(), ", ") + "\n";
    }
    details += "slots: " + std::to_string(std::max(1, job.slots_per_node())) + " of one worker (its world_size)\n";
    if (!job.error().empty()) details += "error: " + job.error() + "\n";
    details += "config:\n" + nlohmann::json::parse(job.config_json()).dump(2) + "\n";
    std::cout << terminal_text(details);
  });
}

void add_workers_command(CLI::App& app, CliContext& context) {
  auto* cmd = app.add_subcommand("workers", "list workers, their slots and running jobs");
  cmd->footer(examples({
                       "gammalab workers",
                       "gammalab --server coordinator:50051 workers --json"}));
  cmd->callback([&context] {
    const std::vector<v1::Worker> list = list_all_workers(*connect_coordinator(context.server), context.server);
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    std::cout << (context.json ? to_json_array(list) + "\n" : workers_table(list, now_ms));
  });
}

}  // namespace gammalab::cli
