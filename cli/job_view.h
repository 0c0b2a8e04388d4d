#pragma once
// How the CLI shows sweeps, jobs and workers: aligned tables for people, JSON for tools.
#include <string>
#include <vector>

#include "gammalab/v1/gammalab.pb.h"

namespace gammalab::cli {

namespace v1 = ::gammalab::v1;

std::string sweeps_table(const std::vector<v1::Sweep>& sweeps);
std::string jobs_table(const std::vector<v1::Job>& jobs);
std::string workers_table(const std::vector<v1::Worker>& workers);
// One line per job with a progress bar, step, tokens, loss, throughput and ETA (for `watch`).
std::string progress_lines(const std::vector<v1::Job>& jobs, int bar_width = 24);

std::string state_label(v1::JobState state);
// Protobuf message as JSON with the proto field names.
std::string to_json_text(const google::protobuf::Message& message);
template <typename T>
std::string to_json_array(const std::vector<T>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ",\n" : "\n") + to_json_text(items[i]);
  return out + "\n]";
}

}  // namespace gammalab::cli
