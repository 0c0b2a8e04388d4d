#pragma once
// The names of the metrics gammalab-train prints and everything downstream reads (worker, store, HTTP API,
// CLI, fitter, dashboard). The dashboard gets them from the HTTP API's /api/meta, never from its own copy.
#include <array>
#include <cstddef>
#include <string_view>

namespace gammalab::metric_names {

inline constexpr std::string_view kTrainLoss = "train/loss";          // mean cross-entropy of the step's batch
inline constexpr std::string_view kValLoss = "val/loss";              // cross-entropy on the held-out set
inline constexpr std::string_view kLearningRate = "lr";               // the schedule's LR at that step
inline constexpr std::string_view kGradNorm = "grad_norm";            // global gradient norm before clipping
inline constexpr std::string_view kFlops = "flops";                   // training FLOPs so far
inline constexpr std::string_view kTokensPerSecond = "tokens_per_s";  // throughput since the last log step
inline constexpr std::string_view kSharpness = "sharpness";           // top Hessian eigenvalue estimate
inline constexpr std::string_view kScaleRmsInput = "scale_rms/input";    // RMS of the Input-Norm scale vectors
inline constexpr std::string_view kScaleRmsOutput = "scale_rms/output";  // RMS of the Output-Norm scale vectors
// Wall-clock seconds of training up to the step, summed over the attempts whose steps make up the curve (a
// resumed run continues its checkpoint's count; the time of steps redone after a crash counts once).
inline constexpr std::string_view kWallSeconds = "wall_s";

// Not the trainer's: what a job's processes use, sampled by its worker from /proc (worker/process_usage.h) and
// reported as ordinary metrics at the step of the line it just relayed, every --system-metrics-s seconds.
inline constexpr std::string_view kSysCpuCores = "sys/cpu_cores";        // CPU seconds per second, all processes
inline constexpr std::string_view kSysMemoryBytes = "sys/memory_bytes";  // resident memory, summed likewise
// And of the GPUs its slots hold, through NVML (worker/gpu_usage.h), where the worker has --gpus and a driver.
inline constexpr std::string_view kSysGpuUtil = "sys/gpu_util";                  // percent, mean over its devices
inline constexpr std::string_view kSysGpuMemoryBytes = "sys/gpu_memory_bytes";  // device memory in use, summed
inline constexpr std::array<std::string_view, 4> kSystem = {kSysCpuCores, kSysMemoryBytes, kSysGpuUtil,
                                                            kSysGpuMemoryBytes};

// Not a curve: a run prints it once the checkpoint at one of its branch points is written (its value is the
// step), so that the coordinator learns through the metric path (lossless, idempotent, fenced by attempt) that
// the cooldown branch starting there may be leased (docs/branches.md). Charts and fits leave it out.
inline constexpr std::string_view kBranchPoint = "branch_point";

// The two losses a run is judged by, val first (what a run's final loss is read from).
inline constexpr std::array<std::string_view, 2> kLosses = {kValLoss, kTrainLoss};

// The scale-vector norms per role: the quantity of the paper's Theorem 2.3 (bounded with weight decay on the
// Input-Norm vectors, drifting up without it). A report keeps them beside the losses.
inline constexpr std::array<std::string_view, 2> kScaleNorms = {kScaleRmsInput, kScaleRmsOutput};

// A metric of a program of the user's own (docs/own-program.md: accuracy, a per-layer norm): "user/" and then 1 to
// kMaxUserNameBytes letters, digits and "_-./", any finite value of either sign, and at most kMaxUserMetricsPerJob
// of them per job (the worker's contract and the coordinator's ingest both count them), so that what a job can
// add to the store's names and to every reader's work stays bounded. Charts list them after the known ones.
inline constexpr std::string_view kUserPrefix = "user/";
inline constexpr std::size_t kMaxUserNameBytes = 64;
inline constexpr std::size_t kMaxUserMetricsPerJob = 32;

// Whether `name` is a well-formed metric of the user's own.
constexpr bool is_user_metric(std::string_view name) {
  if (!name.starts_with(kUserPrefix)) return false;
  const std::string_view rest = name.substr(kUserPrefix.size());
  if (rest.empty() || rest.size() > kMaxUserNameBytes) return false;
  for (char c : rest) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.' || c == '/';
    if (!ok) return false;
  }
  return true;
}

// Every metric a run can have (the trainer's, then its worker's), in the order the dashboard lists them.
inline constexpr std::array<std::string_view, 14> kAll = {
    kTrainLoss,      kValLoss,     kLearningRate,   kGradNorm,   kFlops,         kTokensPerSecond, kWallSeconds,
    kSharpness,      kScaleRmsInput, kScaleRmsOutput, kSysCpuCores, kSysMemoryBytes, kSysGpuUtil,   kSysGpuMemoryBytes};

}  // namespace gammalab::metric_names
