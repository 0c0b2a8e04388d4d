// `gammalab fit SWEEP`: one run point per succeeded job, with its final loss from the stored curves.
#include "cli/client/sweep_runs.h"

#include <cmath>

#include "cli/client/coordinator_client.h"
#include "core/scaling/run_point.h"

namespace gammalab::cli {

std::vector<gammalab::RunPoint> fetch_sweep_runs(const std::string& server, const std::string& sweep_id,
                                                 const std::string& group_by) {
  auto stub = connect_coordinator(server);
  v1::ListJobsRequest list;
  list.set_sweep_id(sweep_id);
  list.add_states(v1::JOB_STATE_SUCCEEDED);
  v1::ListJobsResponse jobs;
  check(stub->ListJobs(rpc_context().get(), list, &jobs), "jobs of sweep " + sweep_id, server);

  v1::GetMetricsRequest request;
  for (const auto& job : jobs.jobs()) request.add_job_ids(job.id());
  request.add_names("val/loss");
  request.add_names("train/loss");
  request.set_after_step(-1);
  v1::GetMetricsResponse metrics;
  check(stub->GetMetrics(rpc_context().get(), request, &metrics), "metrics of sweep " + sweep_id, server);

  std::vector<gammalab::RunPoint> runs;
  for (int i = 0; i < jobs.jobs_size(); ++i) {
    const auto& job = jobs.jobs(i);
    std::vector<MetricPoint> val, train;
    for (const auto& p : metrics.jobs(i).points()) {
      (p.name() == "val/loss" ? val : train).push_back({p.step(), p.tokens(), p.name(), p.value()});
    }
    const double loss = final_loss(val, train);
    if (!std::isfinite(loss)) continue;  // a run without a finite final loss has nothing to fit
    runs.push_back(job_run_point(job_config_from_json(nlohmann::json::parse(job.config_json())), loss,
                                 group_by.empty() ? "scale.variant" : group_by, job.name()));
  }
  return runs;
}

}  // namespace gammalab::cli
