#pragma once
// What a job's processes use, read from /proc, reported by its worker as ordinary metrics
// (metric_names::kSystem): CPU seconds per wall second and resident memory, each summed over the processes of the
// job's process group (the trainer or program the worker started, every rank and data loader it forks). GPU
// utilisation is not read here.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "core/metric.h"
#include "worker/gpu_usage.h"

namespace gammalab {

struct ProcessUsage {
  double cpu_seconds = 0;     // user + system time of the processes alive now
  std::int64_t rss_bytes = 0; // their resident memory
  int processes = 0;
};

// The processes of group `pgid` as /proc has them now (none: all zero). A process that exits while it is read
// is left out.
ProcessUsage process_group_usage(pid_t pgid);

// When to sample and at which step: at most once per `every`, at the step of a metric line just relayed, and
// only past `stored_last_step` (what the coordinator had of the job when the attempt was leased: a point of a
// resumed attempt at a step below what is stored would go back, and be refused) and past the last sample.
class UsageSampler {
 public:
  using Clock = std::chrono::steady_clock;
  // `nvml` and `devices`: the GPUs the job's slots hold, read with the same sample (none: no GPU points).
  UsageSampler(pid_t pgid, std::chrono::milliseconds every, std::int64_t stored_last_step, Clock::time_point start,
               const Nvml* nvml = nullptr, std::vector<std::string> devices = {});

  // The points to report with the line at `step` (`tokens`), or none. CPU is averaged since the last sample
  // (since `start` for the first: a process starts at none); a process that exited in between takes its time
  // with it, so a drop is read as 0, never below.
  std::vector<MetricPoint> at(std::int64_t step, std::int64_t tokens, Clock::time_point now);

 private:
  pid_t pgid_;
  std::chrono::milliseconds every_;
  std::int64_t last_step_;
  Clock::time_point last_time_;
  double last_cpu_ = 0;
  const Nvml* nvml_;
  std::vector<std::string> devices_;
};

}  // namespace gammalab
