#include "worker/trainer/parallel/rank_launcher.h"

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/rendezvous_line.h"
#include "worker/trainer/parallel/collectives.h"
#include "worker/trainer/parallel/rank_group.h"

namespace gammalab::trainer {

namespace {

constexpr auto kPoll = std::chrono::milliseconds(50);

// The environment of rank `rank`: ours, minus the variables we set.
std::vector<std::string> rank_environment(const RankSpec& world, int rank, int local_rank, std::uint16_t port) {
  std::vector<std::string> env = RankGroup::environment_without(
      {"RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "GAMMALAB_STORE_HOSTED",
       "GAMMALAB_DIST_TIMEOUT_S"});
  env.push_back("RANK=" + std::to_string(rank));
  env.push_back("WORLD_SIZE=" + std::to_string(world.world_size));
  env.push_back("LOCAL_RANK=" + std::to_string(local_rank));
  // On one machine its ranks meet on loopback; across machines at node 0's address, which also tells Gloo
  // which interface to use (collectives.cpp).
  env.push_back("MASTER_ADDR=" + (world.nodes > 1 ? world.master_addr : std::string("127.0.0.1")));
  env.push_back("MASTER_PORT=" + std::to_string(port));
  env.push_back("GAMMALAB_STORE_HOSTED=1");
  env.push_back("GAMMALAB_DIST_TIMEOUT_S=" + std::to_string(world.timeout.count()));
  return env;
}

}  // namespace

int launch_local_ranks(const RankSpec& world, int argc, char** argv, const std::atomic<bool>& stop, std::ostream& log,
                       std::ostream& out) {
  // Node 0 (or the only node) hosts the store; the other nodes' ranks join node 0's.
  std::optional<HostedStore> store;
  std::uint16_t port = world.master_port;
  if (world.node_rank == 0) {
    store.emplace(world.timeout, world.nodes > 1 ? world.master_port : std::uint16_t{0});
    port = store->port();
    if (world.nodes > 1) out << format_rendezvous_line(port) << std::endl;  // for this node's worker
  }
  const int n = world.world_size / world.nodes, first = world.node_rank * n;
  std::vector<RankGroup::Rank> ranks;
  for (int r = 0; r < n; ++r) ranks.push_back({rank_environment(world, first + r, r, port), -1});
  RankGroup group("/proc/self/exe", std::vector<std::string>(argv, argv + argc), std::move(ranks), first, log);
  log << "started ranks " << first << " to " << first + n - 1 << " of " << world.world_size << " (rendezvous on "
      << (world.nodes > 1 ? world.master_addr : std::string("127.0.0.1")) << ":" << port << ")\n";
  bool forwarded_stop = false;
  while (group.live()) {
    group.poll();
    if (stop.load() && !forwarded_stop) {
      forwarded_stop = true;  // the ranks agree on the step to stop after (trainer.cpp)
      group.terminate();
    }
    std::this_thread::sleep_for(kPoll);
  }
  return group.status();
}

}  // namespace gammalab::trainer
