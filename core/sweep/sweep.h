#pragma once
// A sweep: one YAML document that describes a whole study, expanded into fully resolved jobs
// (core/sweep/expanded.h); its problems are reported as diagnostics (core/sweep/diagnostics.h).
// Format: docs/sweeps.md. Expansion is deterministic and needs no LibTorch or gRPC.
#include <cstddef>
#include <filesystem>
#include <string>

#include "core/limits.h"
#include "core/sweep/diagnostics.h"
#include "core/sweep/expanded.h"

namespace gammalab {

struct SweepOptions {
  std::filesystem::path preset_dir;  // configs/models; empty = model_preset_dir()
  std::size_t max_jobs = limits::kMaxJobsPerSweep;  // a sweep that expands to more jobs is an error
};

// Parses, validates and expands both stages. Throws SweepError listing every problem found.
SweepStages expand_stages(const std::string& yaml_text, const std::string& file_name, const SweepOptions& options);

// The main stage of expand_stages (as written, before any tuning).
Sweep expand_sweep(const std::string& yaml_text, const std::string& file_name, const SweepOptions& options);

}  // namespace gammalab
