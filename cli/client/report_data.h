#pragma once
// What `gammalab report SWEEP` puts into its page (cli/report_page.h): one sweep as the dashboard reads it,
// fetched from the coordinator over gRPC, in the HTTP API's shapes (proto/dashboard_json.h) so that
// web/report.js reads it with the dashboard's own code:
//   {"format": 1, "generated_at": "...Z", "meta": /api/meta, "sweep": /api/sweeps/{id} (with the sweep file and
//    the tune report), "jobs": /api/sweeps/{id}/jobs, "runs": /api/sweeps/{id}/runs,
//    "metrics": {job_id: {"train/loss": columns, "val/loss": columns, and "scale_rms/input" and
//    "scale_rms/output" where the job logged them (metric_names::kScaleNorms)}}, each series downsampled to
//    max_points / 4 buckets (core/metric_downsample.h), "fits": /api/sweeps/{id}/fits or null}
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace gammalab::cli {

// The points per series a report keeps by default (as the dashboard's first load): four per pixel column of
// a 1000-pixel chart.
inline constexpr std::int64_t kReportMaxPoints = 4000;

// The report data of sweep `sweep_id` (an id or a unique name). `max_points` must be within the HTTP API's
// limits for max_points (4 .. 400000); throws std::invalid_argument naming --max-points otherwise, and
// RpcError when the coordinator refuses or cannot be reached.
nlohmann::json fetch_report_data(const std::string& server, const std::string& sweep_id, std::int64_t max_points);

}  // namespace gammalab::cli
