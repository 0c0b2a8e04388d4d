// `gammalab fit SWEEP`: one run point per succeeded job, with its final loss from the stored curves; or the
// stored fit.
#include "cli/client/sweep_runs.h"

#include <string_view>

#include "cli/client/coordinator_client.h"
#include "core/job_stage.h"
#include "core/metric_names.h"
#include "core/scaling/job_points.h"
#include "proto/convert.h"

namespace gammalab::cli {

SweepRuns fetch_sweep_runs(const std::string& server, const std::string& sweep_id, const std::string& group_by) {
  auto stub = connect_coordinator(server);
  const std::vector<v1::Job> jobs = list_all_jobs(*stub, sweep_id, {to_proto(JobState::kSucceeded)}, server);

  const std::vector<std::string> loss_names(metric_names::kLosses.begin(), metric_names::kLosses.end());
  std::vector<JobLosses> main, tune;  // tune runs measure LRs, not the study's sizes: only checked, never fitted
  for (const v1::Job& job : jobs) {
    std::vector<JobLosses>& stage = job.stage() == job_stage::kTune ? tune : main;
    JobLosses& one = stage.emplace_back(JobLosses{job.id(), job.name(), job.config_json(), {}, {}});
    for (MetricPoint& p : fetch_job_metrics(*stub, job.id(), loss_names, server)) one.add(std::move(p));
  }
  const std::string by = group_by.empty() ? "scale.variant" : group_by;
  return {job_points(main, by).runs, tune_runs_at_pick(main, tune, by)};
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
