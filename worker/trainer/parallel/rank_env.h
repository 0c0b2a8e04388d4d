#pragma once
// Which rank of how many this process is, and where the ranks meet: from the trainer's flags, else from a
// launcher's environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT, as torchrun sets them), else
// from the job config's world_size (then this process launches the ranks itself, rank_launcher.h).
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "core/job_config.h"

namespace gammalab::trainer {

struct RankSpec {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // the rank's index among the ranks of its machine: its GPU when it sees several
  std::string master_addr = "127.0.0.1";
  std::uint16_t master_port = 0;
  // The launcher hosts the rendezvous store (GAMMALAB_STORE_HOSTED=1); otherwise rank 0 hosts it.
  bool store_hosted = false;
  // How long a collective or the rendezvous may wait for a peer before the rank fails with an error.
  std::chrono::seconds timeout{1800};
  // A job that spans machines (a launcher's view): `nodes` launchers, one per machine, each starting
  // world_size / nodes ranks; this one is node `node_rank` and starts ranks node_rank * that ... . Node 0's
  // launcher hosts the store (at master_port, or a port the kernel picks, which it announces on stdout).
  int nodes = 1;
  int node_rank = 0;

  bool distributed() const { return world_size > 1; }
};

// What the command line gave (unset: not given).
struct RankFlags {
  std::optional<int> rank, world_size, local_rank, master_port, nodes, node_rank;
  std::optional<std::string> master_addr;
  std::optional<int> timeout_s;
};

// How this process takes part in the job.
struct RankPlan {
  enum class Kind { Single, Rank, Launcher } kind = Kind::Single;
  RankSpec spec;  // Rank: this rank; Launcher: the world it starts (rank 0's view)
};

// Flags over environment; a config world_size must agree with a given WORLD_SIZE. Throws ConfigError naming the
// flag or variable, its limit and its value.
RankPlan plan_ranks(const RankFlags& flags, const JobConfig& config);

}  // namespace gammalab::trainer
