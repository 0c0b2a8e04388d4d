// gammalab cancel SWEEP [JOB...] | retry JOB | logs JOB: acting on jobs.
#include <iostream>

#include "cli/client/coordinator_client.h"
#include "cli/command.h"
#include "cli/job_view.h"
#include "cli/terminal_text.h"
#include "proto/dashboard_json.h"

namespace gammalab::cli {
namespace {

struct CancelArgs {
  std::string sweep;
  std::vector<std::string> jobs;
};

struct LogsArgs {
  std::string job;
  std::int64_t tail = 0;
};

}  // namespace

void add_cancel_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<CancelArgs>();
  auto* cmd = app.add_subcommand("cancel", "cancel a sweep's unfinished jobs, or only the jobs named");
  cmd->footer(examples({
                       "gammalab cancel 3                 # every unfinished job of sweep 3",
                       "gammalab cancel demo-cpu 41 42    # only jobs 41 and 42 of sweep demo-cpu"}));
  cmd->add_option("sweep", args->sweep, "sweep id or name")->required();
  cmd->add_option("jobs", args->jobs, "job ids or SWEEP/JOB-NAMEs (default: all unfinished)");
  cmd->callback([args, &context] {
    v1::CancelSweepRequest request;
    request.set_sweep_id(args->sweep);
    for (const auto& j : args->jobs) request.add_job_ids(j);
    v1::CancelSweepResponse response;
    check(connect_coordinator(context.server)->CancelSweep(rpc_context().get(), request, &response),
          "cancel " + args->sweep, context.server);
    if (context.json)
      std::cout << proto_to_json(response) << "\n";
    else
      std::cout << response.cancelled() << " job(s) cancelled (running ones stop within seconds)\n";
  });
}

void add_retry_command(CLI::App& app, CliContext& context) {
  auto job_id = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("retry", "queue a failed or cancelled job again");
  cmd->footer(examples({
                       "gammalab retry 42"}));
  cmd->add_option("job", *job_id, "job id, or SWEEP/JOB-NAME")->required();
  cmd->callback([job_id, &context] {
    v1::RetryJobRequest request;
    request.set_job_id(*job_id);
    v1::Job job;
    check(connect_coordinator(context.server)->RetryJob(rpc_context().get(), request, &job), "retry " + *job_id,
          context.server);
    // --json: the job in the HTTP API's shape (proto/dashboard_json.h), its state spelt "pending" as everywhere.
    std::cout << (context.json ? dashboard_job(job).dump() + "\n" : terminal_text("job " + job.id() + " queued again\n"));
  });
}

void add_logs_command(CLI::App& app, CliContext& context) {
  auto args = std::make_shared<LogsArgs>();
  auto* cmd = app.add_subcommand("logs", "print a job's log (trainer output of every attempt)");
  cmd->footer(examples({
                       "gammalab logs 42",
                       "gammalab logs 42 --tail 50         # the last 50 lines"}));
  cmd->add_option("job", args->job, "job id, or SWEEP/JOB-NAME")->required();
  cmd->add_option("--tail", args->tail, "only the last N bytes");
  cmd->callback([args, &context] {
    v1::GetJobLogRequest request;
    request.set_job_id(args->job);
    request.set_tail_bytes(args->tail);
    v1::GetJobLogResponse response;
    check(connect_coordinator(context.server)->GetJobLog(rpc_context().get(), request, &response), "logs " + args->job,
          context.server);
    std::cout << terminal_text(response.text());
  });
}

}  // namespace gammalab::cli
