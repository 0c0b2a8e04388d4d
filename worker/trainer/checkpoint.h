#pragma once
// Checkpoints: one safetensors file per checkpoint (model, optimizer state, and in its metadata the step,
// tokens, data position, RNG seed and job config), written atomically with its CRC-32 and length beside it
// (checkpoint_checksum.h); DIR/latest names the newest one and is replaced atomically after it. The last `keep`
// checkpoints (at least two) are kept, so that a newest one found damaged has an intact one before it.
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "worker/trainer/data/data_loader.h"
#include "worker/trainer/model/model.h"
#include "worker/trainer/optim/optimizer.h"

namespace gammalab::trainer {

struct CheckpointMeta {
  std::int64_t step = 0;
  std::int64_t tokens = 0;
  DataPosition data;
  std::uint64_t seed = 0;
  nlohmann::json config;  // the job config, for `export`
  double train_seconds = 0;  // wall-clock seconds of training up to `step`, summed over attempts (metric wall_s)
  // Every metric line printed up to `step`. A resumed run prints them again first: a line the previous run
  // printed but nobody relayed (its worker was killed) is not lost with it. The coordinator ignores repeats.
  std::vector<std::string> metric_lines;
};

// A checkpoint file that is missing, fails its checksum or length, or cannot be deserialised.
struct CheckpointDamaged : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::filesystem::path save_checkpoint(const std::filesystem::path& dir, const Model& model, const Optimizer* optimizer,
                                      const CheckpointMeta& meta, int keep = 2);

// The newest checkpoint in dir (via `latest`, else the highest-numbered file), if any; not verified.
std::optional<std::filesystem::path> latest_checkpoint(const std::filesystem::path& dir);

// Every checkpoint in dir, the one `latest` names first, then the rest from the highest step down.
std::vector<std::filesystem::path> checkpoints_newest_first(const std::filesystem::path& dir);

// Verifies the file against its checksum, then loads model parameters (and optimizer state when `optimizer`
// is given) in place. Throws, naming the file and the reason, before touching the model or the optimizer:
// CheckpointDamaged if the file is missing or damaged, std::runtime_error if it is intact but does not fit
// them (another model or variant). A file of the previous format (no checksum) is loaded with a warning on
// `log`, so that runs checkpointed before checksums were stored can still resume.
CheckpointMeta load_checkpoint(const std::filesystem::path& file, Model& model, Optimizer* optimizer,
                               std::ostream* log = nullptr);
CheckpointMeta read_checkpoint_meta(const std::filesystem::path& file);

// Loads the newest checkpoint in dir that is not damaged; each damaged one is reported on `log` (file and
// reason) and the next older one tried. nullopt when dir has none, or none intact (reported): the run starts
// from step 0, as it does with no checkpoints. An intact checkpoint that does not fit still throws.
struct LoadedCheckpoint {
  std::filesystem::path file;
  CheckpointMeta meta;
};
std::optional<LoadedCheckpoint> load_newest_intact_checkpoint(const std::filesystem::path& dir, Model& model,
                                                              Optimizer* optimizer, std::ostream& log);

}  // namespace gammalab::trainer
