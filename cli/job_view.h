#pragma once
// How the CLI shows sweeps, jobs and workers: aligned tables for people, JSON for tools.
#include <string>
#include <vector>

#include "gammalab/v1/gammalab.pb.h"
#include "proto/proto_json.h"

namespace gammalab::cli {

namespace v1 = ::gammalab::v1;

std::string sweeps_table(const std::vector<v1::Sweep>& sweeps);
// A sweep's status in a word: "active" while any job may still run; once finished, "failed" when no job
// succeeded and some failed, "partly failed" when some of each, "cancelled" when every job was cancelled, else
// "finished".
std::string sweep_status(const v1::Sweep& sweep);
std::string jobs_table(const std::vector<v1::Job>& jobs);
std::string workers_table(const std::vector<v1::Worker>& workers);
// One line per job with a progress bar, step, tokens, loss, throughput and ETA (for `watch`).
std::string progress_lines(const std::vector<v1::Job>& jobs, int bar_width = 24);

std::string state_label(v1::JobState state);
// The JSON of --json output: protobuf field names, one object per line in arrays.
template <typename T>
std::string to_json_array(const std::vector<T>& items) {
  return proto_json_array(items, ",\n");
}
using gammalab::proto_to_json;

}  // namespace gammalab::cli
