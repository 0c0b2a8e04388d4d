#pragma once
// A cooldown branch (docs/branches.md): a run that starts from another run's checkpoint at step s instead of
// from step 0. It is the same run as one trained from scratch whenever everything that shapes steps 1..s is the
// same in both: the model, data, seed, batch and optimizer, and the learning rate at each of those steps.
// Then the branch is an execution shortcut, not a different experiment: its config (and config hash) is the
// standalone run's, and its curve after s is bitwise the standalone run's (tests/trainer/branch_test.cpp).
#include <cstdint>
#include <string>

#include "core/job_config.h"

namespace gammalab {

// Why a run of `branch` cannot start from a checkpoint that a run of `parent` wrote after `step`; empty when it
// can. Names the first fields that differ (beyond those free to: the run's length, its decay, its logging,
// evaluation and checkpoint cadence, threads and ranks), or the first step whose LR multiplier differs, or a
// step the branch would not train past.
std::string branch_point_mismatch(const JobConfig& parent, const JobConfig& branch, std::int64_t step);

}  // namespace gammalab
