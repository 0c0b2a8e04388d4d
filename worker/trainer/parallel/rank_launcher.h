#pragma once
// A job of world_size ranks on this machine (or its share of them on each of several), started by this process: it hosts the rendezvous store, runs
// world_size copies of this binary (each with RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT set, as
// torchrun would), forwards SIGTERM to them, and treats them as one job: when one fails, the others are stopped.
#include <atomic>
#include <ostream>

#include "worker/trainer/parallel/rank_env.h"

namespace gammalab::trainer {

// argv: this process's own command line (re-run by each rank). Of a job of several nodes it starts this node's
// share of the ranks; node 0 prints the store's rendezvous line (core/rendezvous_line.h) to `out`. Returns the
// job's exit status: its first rank's, unless another rank failed first (its status, or exit_codes::kCrashed
// for a rank killed by a signal).
int launch_local_ranks(const RankSpec& world, int argc, char** argv, const std::atomic<bool>& stop, std::ostream& log,
                       std::ostream& out);

}  // namespace gammalab::trainer
