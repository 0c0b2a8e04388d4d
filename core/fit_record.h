#pragma once
// One law's scaling-law fit of a sweep, in one version of its fits: every refit stores a new version with one
// report per law, all fitted on the same jobs. Plain C++, no gRPC: proto/convert.h maps it to the wire's Fit
// message.
#include <cstdint>
#include <string>
#include <vector>

namespace gammalab {

struct FitRecord {
  int version = 0;              // 1, 2, ... per sweep
  std::int64_t created_ms = 0;  // milliseconds since the epoch
  std::string law;              // n | c | chinchilla | isoflop
  std::string group_by;         // the config field that names the groups, e.g. scale.variant
  std::vector<std::string> job_ids;  // the jobs whose final losses went in
  std::string report_json;      // parameters with intervals, multipliers (core/scaling/fit_report.h)

  bool operator==(const FitRecord&) const = default;
};

}  // namespace gammalab
