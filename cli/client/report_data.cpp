// The data of `gammalab report` (cli/client/report_data.h).
#include "cli/client/report_data.h"

#include <absl/time/clock.h>
#include <absl/time/time.h>

#include <stdexcept>
#include <string_view>

#include "cli/client/coordinator_client.h"
#include "core/metric_downsample.h"
#include "core/metric_names.h"
#include "core/scaling/job_points.h"
#include "proto/convert.h"
#include "proto/dashboard_json.h"
#include "proto/proto_json.h"

namespace gammalab::cli {

nlohmann::json fetch_report_data(const std::string& server, const std::string& sweep_id, std::int64_t max_points) {
  constexpr std::int64_t kLo = 4 * kMinDownsampleBuckets, kHi = 4 * kMaxDownsampleBuckets;
  if (max_points < kLo || max_points > kHi) {
    throw std::invalid_argument("--max-points: expected an integer from " + std::to_string(kLo) + " to " +
                                std::to_string(kHi) + ", got " + std::to_string(max_points));
  }
  const auto buckets = static_cast<std::size_t>(max_points / 4);
  auto stub = connect_coordinator(server);

  v1::GetSweepRequest sweep_request;
  sweep_request.set_sweep_id(sweep_id);
  v1::Sweep sweep;
  check(stub->GetSweep(rpc_context().get(), sweep_request, &sweep), "sweep " + sweep_id, server);

  nlohmann::json jobs = nlohmann::json::array(), runs = nlohmann::json::array(), metrics = nlohmann::json::object();
  std::vector<std::string> shown_names(metric_names::kLosses.begin(), metric_names::kLosses.end());
  shown_names.insert(shown_names.end(), metric_names::kScaleNorms.begin(), metric_names::kScaleNorms.end());
  for (const v1::Job& job : list_all_jobs(*stub, sweep.id(), {}, server)) {
    const std::vector<MetricPoint> points = fetch_job_metrics(*stub, job.id(), shown_names, server);
    JobLosses losses{job.id(), job.name(), job.config_json(), {}, {}};
    for (const MetricPoint& p : points) losses.add(p);
    jobs.push_back(nlohmann::json(dashboard_job(job)));  // (key order is the page's least concern)
    runs.push_back(dashboard_run(job, losses));  // the final losses from every point, not the downsampled ones
    metrics[job.id()] = metric_columns(points, buckets);
  }

  v1::GetFitsRequest fits_request;
  fits_request.set_sweep_id(sweep.id());
  fits_request.set_latest_only(true);
  v1::GetFitsResponse fits;
  check(stub->GetFits(rpc_context().get(), fits_request, &fits), "fits of sweep " + sweep_id, server);
  nlohmann::json fit_data = nullptr;
  if (fits.fits_size() > 0) fit_data = dashboard_latest_fits({fits.fits().begin(), fits.fits().end()});
  return {{"format", 1},
          {"generated_at", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", absl::Now(), absl::UTCTimeZone())},
          {"meta", dashboard_meta()},
          {"sweep", nlohmann::json::parse(proto_to_json(sweep))},
          {"jobs", std::move(jobs)},
          {"runs", std::move(runs)},
          {"metrics", std::move(metrics)},
          {"fits", std::move(fit_data)}};
}

}  // namespace gammalab::cli
