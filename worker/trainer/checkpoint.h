#pragma once
// Checkpoints: one safetensors file per checkpoint (model, optimizer state, and in its metadata the step,
// tokens, data position, RNG seed and job config), written atomically; DIR/latest names the newest one and is
// replaced atomically after it. The last `keep` checkpoints are kept.
#include <filesystem>
#include <optional>
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
  // Every metric line printed up to `step`. A resumed run prints them again first: a line the previous run
  // printed but nobody relayed (its worker was killed) is not lost with it. The coordinator ignores repeats.
  std::vector<std::string> metric_lines;
};

std::filesystem::path save_checkpoint(const std::filesystem::path& dir, const Model& model, const Optimizer* optimizer,
                                      const CheckpointMeta& meta, int keep = 2);

// The newest complete checkpoint in dir (via `latest`, else the highest-numbered file), if any.
std::optional<std::filesystem::path> latest_checkpoint(const std::filesystem::path& dir);

// Loads model parameters (and optimizer state when `optimizer` is given) in place.
CheckpointMeta load_checkpoint(const std::filesystem::path& file, Model& model, Optimizer* optimizer);
CheckpointMeta read_checkpoint_meta(const std::filesystem::path& file);

}  // namespace gammalab::trainer
