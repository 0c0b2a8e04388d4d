#pragma once
// A sweep: one YAML document that describes a whole study, expanded into fully resolved jobs.
// Format: docs/sweeps.md. Expansion is deterministic and needs no LibTorch or gRPC.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
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

// A sweep's stages. Without a `tune:` block only `main`. With one, `tune` holds the tune runs (named
// tune/...), and `main` the main stage as written: its tuned fields still at their base values, until
// apply_picks (core/sweep/tune.h) sets each group's best value.
struct SweepStages {
  Sweep main;
  std::optional<Sweep> tune;
  std::vector<std::string> tuned_fields;  // the tune grid's fields, in file order
  std::vector<std::string> per;           // fields whose values name a tune group (default: every main axis)
  bool allow_edge = false;                // a best value at the edge of its grid is accepted
  // Tuned field -> expression (or constant) giving a main job its value from the pick, e.g.
  // "tuned.optim.lr * tuned.model.d_model / model.d_model"; a field without one takes the pick as it is.
  std::map<std::string, std::string> carry;
};

// Parses, validates and expands both stages. Throws SweepError listing every problem found.
SweepStages expand_stages(const std::string& yaml_text, const std::string& file_name, const SweepOptions& options);

// The main stage of expand_stages (as written, before any tuning).
Sweep expand_sweep(const std::string& yaml_text, const std::string& file_name, const SweepOptions& options);

// Content hash of a resolved config: hex of a 64-bit FNV-1a over its canonical JSON.
std::string config_hash(const JobConfig& config);

}  // namespace gammalab
