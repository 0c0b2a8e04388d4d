#pragma once
// Which checkpoints a run may resume from: only its own job's, written with its own config, and only one whose
// metric lines reach back to what the coordinator stores now. A checkpoint holds the lines since the step
// before which the coordinator had every line when it was written (CheckpointMeta::lines_stored_before). If the
// coordinator stores less now (its database was restored from a backup older than the checkpoint), resuming
// there would leave the steps in between without their points while the job succeeds: the run takes an older
// checkpoint instead, or starts again from step 0, and since training is deterministic it prints the same
// values again (docs/deploy.md, "Restore").
#include <string>

#include <nlohmann/json.hpp>

#include "core/metric_replay.h"
#include "worker/trainer/checkpoint.h"

namespace gammalab::trainer {

// `job_uid`: this job's (empty: run without one, by hand; then any writer's checkpoint with the same config is
// taken, and one with another config is an error). `config`: the run's config as a checkpoint stores it (to_json). `stored`: the lease's word on what the
// coordinator stores (nothing, run by hand: every checkpoint reaches back far enough).
ResumeCheck resume_check(std::string job_uid, nlohmann::json config, StoredMetrics stored);

}  // namespace gammalab::trainer
