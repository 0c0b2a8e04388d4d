#pragma once
// The names of the metrics gammalab-train prints and everything downstream reads (worker, store, HTTP API,
// CLI, fitter, dashboard). The dashboard gets them from the HTTP API's /api/meta, never from its own copy.
#include <array>
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

// The two losses a run is judged by, val first (what a run's final loss is read from).
inline constexpr std::array<std::string_view, 2> kLosses = {kValLoss, kTrainLoss};

// Every metric the trainer can print, in the order the dashboard lists them.
inline constexpr std::array<std::string_view, 9> kAll = {kTrainLoss,   kValLoss,        kLearningRate,
                                                         kGradNorm,    kFlops,          kTokensPerSecond,
                                                         kSharpness,   kScaleRmsInput,  kScaleRmsOutput};

}  // namespace gammalab::metric_names
