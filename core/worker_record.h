#pragma once
// A worker process as the coordinator knows it: what it registered with and what it holds now. Plain C++, no
// gRPC: proto/convert.h maps it to the wire's Worker message.
#include <cstdint>
#include <string>
#include <vector>

namespace gammalab {

struct WorkerRecord {
  std::string id;
  std::string hostname;
  int slots = 0;                  // GPU slots it registered with
  std::vector<std::string> gpus;  // the GPUs it registered, as it named them
  // Milliseconds since the epoch.
  std::int64_t registered_ms = 0;
  std::int64_t last_heartbeat_ms = 0;
  bool alive = false;     // it sent a heartbeat within the worker timeout when it was read
  bool draining = false;  // it finishes what it holds and takes nothing new
  std::vector<std::string> running_job_ids;  // the jobs it holds an attempt of (as a gang's member too)
  // Leased nothing until then (milliseconds since the epoch; 0 or past: not paused): a job failed on it in a way
  // its own environment may cause (Store::finish), said in pause_reason.
  std::int64_t paused_until_ms = 0;
  std::string pause_reason;

  bool operator==(const WorkerRecord&) const = default;
};

}  // namespace gammalab
