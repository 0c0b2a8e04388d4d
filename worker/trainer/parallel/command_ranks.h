#pragma once
// A command job's ranks (docs/own-program.md, "Several ranks"): `gammalab-train ranks --world-size N -- PROGRAM
// ARGS...` starts PROGRAM N times on this machine with the variables torchrun sets (RANK, LOCAL_RANK,
// WORLD_SIZE, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT: a free loopback port, where the program's rank 0
// hosts its own rendezvous, as torch.distributed's env:// does) and treats them as one job (rank_group.h).
// Their output leaves this process's stdout one whole line at a time: rank 0's as it printed it (its metric
// lines reach the worker unchanged), every other rank's behind "[rank R] ", so that a line every rank prints
// is a metric line once and a log line N - 1 times, never N points for one step.
#include <atomic>
#include <ostream>
#include <string>
#include <vector>

namespace gammalab::trainer {

struct CommandRanks {
  int world_size = 2;
  std::vector<std::string> argv;  // argv[0]: the program's path (the worker passes the one it found on its PATH)
};

// Runs the ranks to their end, writing their lines to `out_fd` and what the launcher does to `log`; `stop`
// (SIGTERM to this process) is passed on to ranks that are not in this process's group. Returns the job's exit
// status (RankGroup::status). Throws ConfigError for a bad world size or program, std::runtime_error when the
// ranks cannot be started.
int run_command_ranks(const CommandRanks& ranks, const std::atomic<bool>& stop, std::ostream& log, int out_fd);

}  // namespace gammalab::trainer
