#pragma once
// How the CLI shows sweeps, jobs and workers: aligned tables for people, JSON for tools.
#include <map>
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
// What a person calls each worker, by id: its hostname, as the dashboard shows it, with "#ID" added where
// several workers share a hostname (two workers on one machine), and "worker ID" where it has none.
using WorkerNames = std::map<std::string, std::string>;
WorkerNames worker_names(const std::vector<v1::Worker>& workers);
// A worker as a person reads it: its name from `names`, or its id when the map lacks it (a worker since removed).
std::string worker_label(const WorkerNames& names, const std::string& worker_id);
// The WORKER column names the worker (worker_names); an id the map lacks (a worker since removed) shows as is.
// A run's cooldown branches follow it as a tree (cli/job_family.h), here and in progress_lines.
// In at most `width` columns (0: any), for a terminal: the throughput, tokens, worker, slots and attempt columns
// go first, in that order, then names are cut in the middle; a line under the table says what was left out.
std::string jobs_table(const std::vector<v1::Job>& jobs, const WorkerNames& names = {}, std::size_t width = 0);
// A paused worker (a job failed on it in a way its environment may cause) shows as such, with how much longer
// and why under the table; `now_ms` is the time to count from (milliseconds since the epoch).
std::string workers_table(const std::vector<v1::Worker>& workers, std::int64_t now_ms);
// One line per job with a progress bar, step, tokens, loss, throughput and ETA (for `watch`), in families as
// jobs_table; jobs given in families stay in their order.
std::string progress_lines(const std::vector<v1::Job>& jobs, int bar_width = 24);
// "45s", "3m07s", "2h05m"; "-" for a time not known.
std::string duration_text(double seconds);

std::string state_label(v1::JobState state);
// The JSON of --json output: protobuf field names, one object per line in arrays.
template <typename T>
std::string to_json_array(const std::vector<T>& items) {
  return proto_json_array(items, ",\n");
}
using gammalab::proto_to_json;

}  // namespace gammalab::cli
