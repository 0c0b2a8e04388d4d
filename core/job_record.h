#pragma once
// A job as the coordinator stores and serves it: what the store reads of a job's row, and what the
// coordinator's operations (server/coordinator/coordinator.h) answer. Plain C++, no gRPC: each door converts it
// to its own form (proto/convert.h for the wire's Job message, which mirrors these fields).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/job_state.h"

namespace gammalab {

struct JobRecord {
  std::string id;
  std::string sweep_id;
  std::string name;
  std::string config_hash;
  std::string config_json;  // the resolved gammalab JobConfig
  JobState state = JobState::kPending;
  int attempt = 0;          // leases so far
  int max_attempts = 0;
  std::string worker_id;    // the worker holding the current attempt; empty: none
  std::int64_t step = 0;    // the last reported step
  std::int64_t total_steps = 0;
  std::int64_t tokens = 0;  // tokens seen at `step`
  std::optional<double> last_loss;  // the last train/loss reported; nullopt: none yet
  double tokens_per_s = 0;
  // Milliseconds since the epoch; started and finished are nullopt until the job got there.
  std::int64_t created_ms = 0;
  std::optional<std::int64_t> started_ms;
  std::optional<std::int64_t> finished_ms;
  std::string error;        // why it failed, when it did
  int priority = 0;
  std::string reused_from;  // id of the finished job whose results this one reuses (same config hash)
  std::string stage;        // "tune" or "main" (core/job_stage.h)
  int slots_per_node = 0;   // GPU slots the job takes of each worker it runs on: world_size / nodes
  int nodes = 0;            // the workers it spans at once, each with `slots_per_node` slots
  // Why a pending job waits where the wait is not for a free slot alone: it needs more slots than any live
  // worker has, no worker is alive, or (a branch) its run has not written the checkpoint yet. Empty otherwise.
  // Computed when the job is read, never stored.
  std::string pending_reason;
  // A cooldown branch (docs/branches.md): the run it starts from, and the step of that run's checkpoint.
  std::string parent_id;
  std::int64_t branch_step = 0;
  // A run's: the steps its branches start from, whose checkpoints its trainer writes and keeps.
  std::vector<std::int64_t> branch_points;
  // A branch's, computed when read: the job whose checkpoint at branch_step it starts from (its parent, or the
  // finished job whose results the parent reuses), once that checkpoint is written. Empty: it starts from step 0.
  std::string branch_start_job_id;
  // Identities that never come round again (core/uid.h): the job's, minted at submit, which its checkpoints
  // carry; and the branch start job's, which the checkpoint a branch starts from must carry.
  std::string uid;
  std::string branch_start_job_uid;

  bool operator==(const JobRecord&) const = default;
};

}  // namespace gammalab
