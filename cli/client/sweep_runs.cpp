// `gammalab fit SWEEP`: one run point per succeeded job, with its final loss from the stored curves; or the
// stored fit.
#include "cli/client/sweep_runs.h"

#include <string_view>

#include "cli/client/coordinator_client.h"
#include "core/metric_names.h"
#include "core/scaling/job_points.h"
#include "proto/convert.h"

namespace gammalab::cli {

std::vector<gammalab::RunPoint> fetch_sweep_runs(const std::string& server, const std::string& sweep_id,
                                                 const std::string& group_by) {
  auto stub = connect_coordinator(server);
  const std::vector<v1::Job> jobs = list_all_jobs(*stub, sweep_id, {to_proto(JobState::kSucceeded)}, server);

  std::vector<JobLosses> losses;
  for (const v1::Job& job : jobs) {
    if (job.stage() == "tune") continue;  // tune runs measure LRs, not the study's sizes
    // One job per request: a reply holds one job's losses, not the whole sweep's.
    v1::GetMetricsRequest request;
    request.add_job_ids(job.id());
    for (std::string_view name : metric_names::kLosses) request.add_names(std::string(name));
    request.set_after_step(-1);
    v1::GetMetricsResponse metrics;
    check(stub->GetMetrics(rpc_context().get(), request, &metrics), "metrics of job " + job.id(), server);
    JobLosses& one = losses.emplace_back(JobLosses{job.id(), job.name(), job.config_json(), {}, {}});
    for (MetricPoint& p : from_proto(metrics.jobs(0).points())) one.add(std::move(p));
  }
  return job_points(losses, group_by.empty() ? "scale.variant" : group_by).runs;
}

std::vector<v1::Fit> fetch_latest_fits(const std::string& server, const std::string& sweep_id) {
  auto stub = connect_coordinator(server);
  v1::GetFitsRequest request;
  request.set_sweep_id(sweep_id);
  request.set_latest_only(true);
  v1::GetFitsResponse response;
  check(stub->GetFits(rpc_context().get(), request, &response), "fits of sweep " + sweep_id, server);
  return {response.fits().begin(), response.fits().end()};
}

}  // namespace gammalab::cli
