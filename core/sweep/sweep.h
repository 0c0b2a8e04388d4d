#pragma once
// A sweep: one YAML document that describes a whole study, expanded into fully resolved jobs.
// Format: docs/sweeps.md. Expansion is deterministic and needs no LibTorch or gRPC.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/job_config.h"
#include "core/limits.h"

namespace gammalab {

struct SweepJob {
  std::string name;         // stable and readable: llama-0.12b/unified/adamw/cosine/s0
  std::string config_hash;  // content hash of the resolved config (hex); equal configs, equal hashes
  JobConfig config;
  std::int64_t tokens = 0;  // token budget: `tokens` if the file sets it, else steps * batch_tokens
  std::int64_t params = 0;  // `params` of the expressions: activated params with baseline scale vectors
};

struct Sweep {
  std::string name;         // `name:` of the file, else the file's stem
  std::string description;
  int priority = 0;
  int max_attempts = 3;
  std::vector<SweepJob> jobs;
};

struct SweepDiagnostic {
  std::string file;
  int line = 0;             // 1-based; 0 when unknown
  int column = 0;           // 1-based; 0 when unknown
  std::string path;         // dot path of the field, e.g. base.optim.lr
  std::string message;
  std::string to_string() const;  // file:line:column: path: message
};

class SweepError : public std::runtime_error {
 public:
  explicit SweepError(std::vector<SweepDiagnostic> diagnostics);
  const std::vector<SweepDiagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<SweepDiagnostic> diagnostics_;
};

struct SweepOptions {
  std::filesystem::path preset_dir;  // configs/models; empty = model_preset_dir()
  std::size_t max_jobs = limits::kMaxJobsPerSweep;  // a sweep that expands to more jobs is an error
};

// Parses, validates and expands. Throws SweepError listing every problem found.
Sweep expand_sweep(const std::string& yaml_text, const std::string& file_name, const SweepOptions& options);

// Content hash of a resolved config: hex of a 64-bit FNV-1a over its canonical JSON.
std::string config_hash(const JobConfig& config);

}  // namespace gammalab
