#pragma once
// Checkpoints: one safetensors file per checkpoint (model, optimizer state, and in its metadata the step,
// tokens, data position, RNG seed and job config), written atomically with its CRC-32 and length beside it
// (checkpoint_checksum.h); DIR/latest names the newest one and is replaced atomically after it. The last `keep`
// checkpoints (at least two) are kept, so that a newest one found damaged has an intact one before it.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/shared_root_files.h"
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
  // The metric lines up to `step` the coordinator may not have: every one printed since the run began without a
  // worker; under one, those from the step its relay last reported stored (metrics_logger.h), about the lines
  // since the previous checkpoint. A resumed run prints again those the lease says the coordinator lacks
  // (core/metric_replay.h): a line the previous run printed but nobody relayed (its worker was killed) is not lost.
  std::vector<std::string> metric_lines;
  // Whose it is (core/uid.h): the job uid of the run that wrote it; empty when written without one (a trainer
  // run by hand, or before jobs had uids).
  std::string job_uid;
  // The coordinator stored every metric line before this step when the checkpoint was written (metric_lines
  // are the rest); nullopt in checkpoints older than the field. A resume needs the coordinator to store at
  // least as much then (checkpoint_resume_check.h).
  std::optional<std::int64_t> lines_stored_before;
};

// Why a run may not resume from a checkpoint, told from its metadata before anything is loaded
// (checkpoint_resume_check.h). kForeign: another job's, removed, and the one before it tried. kSkip: left in
// place (the next checkpoint written removes those above it) and the one before it tried. kError: the run
// fails (a checkpoint that does not fit its run is a configuration error, like one of another model).
struct ResumeRefusal {
  enum class Kind { kForeign, kSkip, kError };
  std::string why;
  Kind kind = Kind::kSkip;
};
using ResumeCheck = std::function<std::optional<ResumeRefusal>(const CheckpointMeta&)>;

// A checkpoint file that is missing, fails its checksum or length, or cannot be deserialised.
struct CheckpointDamaged : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// An intact checkpoint that a ResumeCheck refused.
struct CheckpointRefused : std::runtime_error {
  explicit CheckpointRefused(ResumeRefusal r) : std::runtime_error(r.why), refusal(std::move(r)) {}
  ResumeRefusal refusal;
};

// Every file in a checkpoint directory is opened from the directory's descriptor without following a link
// (core/shared_root_files.h): a link at a checkpoint, at its .sum or at `latest` is refused, and a checkpoint
// refused is reported like a damaged one. `latest` is read (at most kMaxLatestBytes) only as the plain file
// name of a checkpoint in the same directory (shared_root::checkpoint_step); anything else it holds (a path,
// "../x", another job's file) is reported and ignored, and the highest-numbered checkpoint used instead.
inline constexpr std::size_t kMaxLatestBytes = 256;
// A checkpoint is read whole (its checksum covers all of it), so its size is checked first: no larger than the
// format's largest header and, for each parameter element of the model, the parameter and at most two optimizer
// moments at 8 bytes each. read_checkpoint_meta, which has no model to size it, allows kMaxCheckpointBytes.
std::uint64_t checkpoint_byte_limit(const Model& model);
inline constexpr std::uint64_t kMaxCheckpointBytes = 64ULL << 30;

// The checkpoint directory, made if absent, held open by the trainer for the whole run. With a shared root
// (the worker's), `dir` must lie below it and is reached from it with no link followed; without one, `dir` as
// given is configuration and may be a link. Throws shared_root::Refused for a link below the root,
// std::invalid_argument when `dir` is not below `shared_root`.
shared_root::Dir open_checkpoint_dir(const std::filesystem::path& dir, const std::filesystem::path& shared_root = {});

// Writes the checkpoint (temp file, renameat), its .sum, then `latest`, all within `dir`, and removes all but
// the newest `keep`, except those at the `pinned` steps (branch points: docs/branches.md), which stay.
// Returns the checkpoint's path.
std::filesystem::path save_checkpoint(const shared_root::Dir& dir, const Model& model, const Optimizer* optimizer,
                                      const CheckpointMeta& meta, int keep = 2,
                                      const std::vector<std::int64_t>& pinned = {});
std::filesystem::path save_checkpoint(const std::filesystem::path& dir, const Model& model, const Optimizer* optimizer,
                                      const CheckpointMeta& meta, int keep = 2);

// The newest checkpoint in dir (via `latest`, else the highest-numbered file), if any; not verified.
std::optional<std::filesystem::path> latest_checkpoint(const std::filesystem::path& dir);

// Every checkpoint's file name in dir, the one `latest` names first, then the rest from the highest step down.
// What is wrong with `latest` is reported on `log` when given.
std::vector<std::string> checkpoints_newest_first(const shared_root::Dir& dir, std::ostream* log = nullptr);

// Verifies the file against its checksum, then loads model parameters (and optimizer state when `optimizer`
// is given) in place. Throws, naming the file and the reason, before touching the model or the optimizer:
// CheckpointDamaged if the file is missing, damaged, a link or larger than checkpoint_byte_limit(model),
// std::runtime_error if it is intact but does not fit them (another model or variant). A file of the previous
// format (no checksum) is loaded with a warning on `log`, so that runs checkpointed before checksums were
// stored can still resume.
// With `check`, a checkpoint it refuses throws CheckpointRefused, also before anything is touched.
CheckpointMeta load_checkpoint(const shared_root::Dir& dir, const std::string& name, Model& model,
                               Optimizer* optimizer, std::ostream* log = nullptr, const ResumeCheck& check = {});
CheckpointMeta load_checkpoint(const std::filesystem::path& file, Model& model, Optimizer* optimizer,
                               std::ostream* log = nullptr);
CheckpointMeta read_checkpoint_meta(const std::filesystem::path& file);

// Loads the newest checkpoint in dir that is not damaged and that `check` (when given) does not refuse; each
// damaged or refused one is reported on `log` (file and reason) and the next older one tried, a foreign one
// removed first. nullopt when dir has none, or none usable (reported): the run starts from step 0, as it does
// with no checkpoints. An intact checkpoint that does not fit still throws.
struct LoadedCheckpoint {
  std::filesystem::path file;
  CheckpointMeta meta;
};
std::optional<LoadedCheckpoint> load_newest_intact_checkpoint(const shared_root::Dir& dir, Model& model,
                                                              Optimizer* optimizer, std::ostream& log,
                                                              const ResumeCheck& check = {});

}  // namespace gammalab::trainer
