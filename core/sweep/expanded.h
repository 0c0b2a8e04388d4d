#pragma once
// A sweep as expanded (core/sweep/sweep.h): its header fields and fully resolved jobs, by stage.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/job_config.h"

namespace gammalab {

struct SweepJob {
  std::string name;         // stable and readable: llama-0.12b/unified/adamw/cosine/s0
  std::string config_hash;  // content hash of the resolved config (hex); equal configs, equal hashes
  JobConfig config;
  std::int64_t tokens = 0;  // token budget: `tokens` if the file sets it, else steps * batch_tokens
  std::int64_t params = 0;  // `params` of the expressions: activated params with baseline scale vectors
  // A cooldown branch (docs/branches.md): the index in its stage's jobs of the run it starts from, and the
  // step of that run's checkpoint it starts from. Its config is the standalone run's: only where it starts
  // differs, and the result does not (core/branch_point.h).
  std::optional<std::size_t> parent;
  std::int64_t branch_step = 0;
  // A parent's: the steps its branches start from, whose checkpoints it writes and keeps.
  std::vector<std::int64_t> branch_points;
};

struct Sweep {
  std::string name;         // `name:` of the file, else the file's stem
  std::string description;
  int priority = 0;
  int max_attempts = 3;
  std::vector<SweepJob> jobs;
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
  int extend = 0;                         // tune.extend and tune.refine (core/sweep/tune_rounds.h)
  bool refine = false;
  bool size_rule = false;                 // tune.size_rule (core/sweep/tune_rule.h)
  // Tuned field -> expression (or constant) giving a main job its value from the pick, e.g.
  // "tuned.optim.lr * tuned.model.d_model / model.d_model"; a field without one takes the pick as it is.
  std::map<std::string, std::string> carry;
};

}  // namespace gammalab
