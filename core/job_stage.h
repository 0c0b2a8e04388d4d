#pragma once
// The stages of a sweep's jobs, as the store keeps them (the jobs table's `stage` column) and every reader
// compares them: a tune stage measures hyperparameters (core/sweep/tune.h) and never enters a fit; the main
// stage is the study.
#include <string>

namespace gammalab::job_stage {

inline const std::string kTune = "tune";
inline const std::string kMain = "main";

}  // namespace gammalab::job_stage
