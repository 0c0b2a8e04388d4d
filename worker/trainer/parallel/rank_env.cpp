#include "worker/trainer/parallel/rank_env.h"

#include <cerrno>
#include <cstdlib>

#include "core/config_error.h"
#include "core/limits.h"

namespace gammalab::trainer {

namespace {

// An integer from the environment, checked: a launcher's variables are input like any other.
std::optional<int> env_int(const char* name, long lo, long hi) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < lo || v > hi) {
    throw ConfigError(std::string("$") + name, "must be an integer in [" + std::to_string(lo) + ", " +
                                                   std::to_string(hi) + "], got '" + text + "'");
  }
  return static_cast<int>(v);
}

std::optional<std::string> env_text(const char* name) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return std::nullopt;
  return std::string(text);
}

void check_range(const char* what, int v, long lo, long hi) {
  if (v < lo || v > hi) {
    throw ConfigError(what, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
                                std::to_string(v));
  }
}

}  // namespace

RankPlan plan_ranks(const RankFlags& flags, const JobConfig& config) {
  constexpr long kMaxWorld = limits::kMaxWorldSize;
  const std::optional<int> world = flags.world_size ? flags.world_size : env_int("WORLD_SIZE", 1, kMaxWorld);
  const std::optional<int> rank = flags.rank ? flags.rank : env_int("RANK", 0, kMaxWorld - 1);
  const std::optional<int> local = flags.local_rank ? flags.local_rank : env_int("LOCAL_RANK", 0, kMaxWorld - 1);
  const std::optional<int> port = flags.master_port ? flags.master_port : env_int("MASTER_PORT", 1, 65535);
  const std::optional<std::string> addr = flags.master_addr ? flags.master_addr : env_text("MASTER_ADDR");
  const std::optional<int> timeout = flags.timeout_s ? flags.timeout_s : env_int("GAMMALAB_DIST_TIMEOUT_S", 1, 86400);
  if (flags.world_size) check_range("--world-size", *flags.world_size, 1, kMaxWorld);
  if (flags.master_port) check_range("--master-port", *flags.master_port, 1, 65535);
  if (flags.timeout_s) check_range("--dist-timeout", *flags.timeout_s, 1, 86400);

  RankPlan plan;
  RankSpec& s = plan.spec;
  if (timeout) s.timeout = std::chrono::seconds(*timeout);
  if (addr) s.master_addr = *addr;
  if (world && config.world_size && *world != *config.world_size) {
    throw ConfigError("world_size", "the job config asks for " + std::to_string(*config.world_size) +
                                        " ranks but the launcher started " + std::to_string(*world));
  }
  if (flags.nodes) check_range("--nodes", *flags.nodes, 1, limits::kMaxNodes);
  if (flags.nodes && config.nodes && *flags.nodes != *config.nodes) {
    throw ConfigError("nodes", "the job config asks for " + std::to_string(*config.nodes) + " nodes but --nodes is " +
                                   std::to_string(*flags.nodes));
  }
  const int nodes = flags.nodes.value_or(config.nodes.value_or(1));
  if (flags.node_rank && nodes == 1) throw ConfigError("--node-rank", "is for a job of several nodes (--nodes)");
  if (world && *world > 1 && !rank) {
    if (!flags.world_size) {
      throw ConfigError("$RANK", "is required with $WORLD_SIZE = " + std::to_string(*world));
    }
    if (flags.master_addr && nodes == 1) {
      throw ConfigError("--master-addr", "is for ranks started by a launcher (with --rank or $RANK) or for a job of "
                                         "several nodes (--nodes); without either this process starts the ranks "
                                         "itself, on 127.0.0.1");
    }
    // --world-size without a rank: this process starts the ranks (of its node).
    s.world_size = *world;
    if (port) s.master_port = static_cast<std::uint16_t>(*port);
    if (nodes > 1) {
      if (*world % nodes != 0) {
        throw ConfigError("--nodes", std::to_string(nodes) + " nodes do not divide the world size of " +
                                         std::to_string(*world) + " ranks");
      }
      if (!flags.node_rank) throw ConfigError("--node-rank", "is required with " + std::to_string(nodes) + " nodes");
      check_range("--node-rank", *flags.node_rank, 0, nodes - 1);
      s.nodes = nodes;
      s.node_rank = *flags.node_rank;
      if (s.node_rank > 0 && (!flags.master_addr || !port)) {
        throw ConfigError(flags.master_addr ? "--master-port" : "--master-addr",
                          "is required on node " + std::to_string(s.node_rank) + ": where node 0 hosts the store");
      }
    }
    plan.kind = RankPlan::Kind::Launcher;
    return plan;
  }
  if (world) {
    // A launcher started this process as one rank of `world`.
    s.world_size = *world;
    const int r = rank.value_or(0);
    check_range(flags.rank ? "--rank" : "$RANK", r, 0, *world - 1);
    s.rank = r;
    s.local_rank = local.value_or(r);
    if (s.world_size > 1 && !port) {
      throw ConfigError("$MASTER_PORT", "is required with a world size of " + std::to_string(*world));
    }
    if (port) s.master_port = static_cast<std::uint16_t>(*port);
    s.store_hosted = env_text("GAMMALAB_STORE_HOSTED").value_or("0") == "1";
    plan.kind = s.world_size > 1 ? RankPlan::Kind::Rank : RankPlan::Kind::Single;
    return plan;
  }
  if (rank) throw ConfigError("$RANK", "is set but no world size is given ($WORLD_SIZE or --world-size)");
  if (config.world_size && *config.world_size > 1) {
    if (nodes > 1) {
      throw ConfigError("nodes", "a job of " + std::to_string(nodes) + " nodes is started on each node with "
                                 "--world-size, --nodes and --node-rank (gammalab-worker does so), or by a launcher");
    }
    s.world_size = *config.world_size;
    if (port) s.master_port = static_cast<std::uint16_t>(*port);
    plan.kind = RankPlan::Kind::Launcher;
  }
  return plan;
}

}  // namespace gammalab::trainer
