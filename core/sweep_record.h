#pragma once
// A stored sweep and how far its jobs got, as the coordinator serves it (the sweep file's document is
// core/sweep/sweep.h's Sweep). Plain C++, no gRPC: proto/convert.h maps it to the wire's Sweep message.
#include <cstdint>
#include <map>
#include <string>

namespace gammalab {

struct SweepRecord {
  std::string id;
  std::string name;
  int priority = 0;
  int max_attempts = 0;
  std::int64_t created_ms = 0;  // milliseconds since the epoch
  std::string source_yaml;      // the submitted file's text; empty in lists (only a lookup of one sweep reads it)
  std::string file_name;
  // Jobs per state, keyed by core/job_state.h's name ("pending", "running", ...); states without jobs are absent.
  std::map<std::string, int> job_counts;
  int total_jobs = 0;
  bool finished = false;  // no job pending, leased or running, and no stage still to come
  // A sweep file with a `tune:` block runs its tune stage first; once every tune job has ended, the
  // coordinator picks the tuned values and adds the main stage's jobs (server/tune_stage.h).
  bool awaiting_main_stage = false;  // the tune stage is running: the main stage comes when it ends
  std::string tune_report_json;      // the picks per group (core/sweep/tune.h), once the tune stage ended
  std::string stage_error;           // why the main stage was not added (e.g. a best value on the edge of the grid)

  bool operator==(const SweepRecord&) const = default;
};

}  // namespace gammalab
