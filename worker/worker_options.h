#pragma once
// Settings of gammalab-worker (its command-line flags).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "rpc/client_channel.h"

namespace gammalab {

struct WorkerOptions {
  std::string coordinator = "127.0.0.1:50051";
  int slots = 1;                                          // jobs run at once
  std::vector<std::string> gpus;                          // devices shared out among slots via CUDA_VISIBLE_DEVICES
  std::filesystem::path trainer;                          // gammalab-train; default: next to this executable
  std::filesystem::path shared_root = "gammalab-shared";  // the coordinator's --shared-root (cluster FS)
  std::filesystem::path data_dir;                         // base of relative data paths; default $GAMMALAB_DATA_DIR
  std::string hostname;                                   // default: this machine's name
  // Where the other machines of a job that spans workers reach this one's rendezvous store, when this worker
  // is its node 0: a name or address they resolve. Default: the machine's host name (not --hostname).
  std::string advertise_address;
  int cancel_grace_ms = 5000;                             // SIGTERM, then SIGKILL after this long
  // The most a program of the user's own (a command job) writes to its job's log in one attempt, stdout and
  // stderr together; beyond it one line says so and the rest is dropped (its metric lines are still relayed).
  std::int64_t max_program_log_bytes = std::int64_t{256} << 20;
  // A drain (SIGTERM to the worker) gives each trainer this long to checkpoint and exit before SIGKILL. Long
  // enough for a large model's checkpoint; shorter than the warning a scheduler gives (Slurm's --signal lead).
  int drain_grace_ms = 90000;
  std::string health_address;                             // HOST:PORT of /healthz and /readyz; empty = off
  int poll_interval_ms = 1000;                            // how often an idle slot asks for work
  // How often a job's CPU and memory are reported (metric_names::kSystem, worker/process_usage.h); 0: never.
  double system_metrics_s = 10;
  // NVML, for the GPUs' use (worker/gpu_usage.h): the driver's library, or a path; "none": no GPU metrics.
  std::string nvml_library = "libnvidia-ml.so.1";
  ClientSecurity security;                                // worker token and TLS (--token-file, --tls-*)
};

}  // namespace gammalab
