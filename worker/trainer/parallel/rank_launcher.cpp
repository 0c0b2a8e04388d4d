#include "worker/trainer/parallel/rank_launcher.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/exit_codes.h"
#include "core/rendezvous_line.h"
#include "worker/trainer/parallel/collectives.h"

extern char** environ;

namespace gammalab::trainer {

namespace {

// How long the other ranks get to end on their own (a failed collective ends them) before they are killed.
constexpr auto kGrace = std::chrono::seconds(10);
constexpr auto kPoll = std::chrono::milliseconds(50);

// The environment of rank `rank`: ours, minus the variables we set.
std::vector<std::string> rank_environment(const RankSpec& world, int rank, int local_rank, std::uint16_t port) {
  static const char* const kOwn[] = {"RANK=", "WORLD_SIZE=", "LOCAL_RANK=", "MASTER_ADDR=", "MASTER_PORT=",
                                     "GAMMALAB_STORE_HOSTED=", "GAMMALAB_DIST_TIMEOUT_S="};
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    bool own = false;
    for (const char* k : kOwn) own = own || std::strncmp(*e, k, std::strlen(k)) == 0;
    if (!own) env.emplace_back(*e);
  }
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

int status_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return exit_codes::kCrashed;
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
  // Everything exec needs is built before fork: the child may only make async-signal-safe calls.
  std::vector<std::vector<std::string>> envs;
  for (int r = 0; r < n; ++r) envs.push_back(rank_environment(world, first + r, r, port));
  std::vector<char*> args(argv, argv + argc);
  args.push_back(nullptr);
  std::vector<pid_t> pids(static_cast<std::size_t>(n), -1);
  const pid_t parent = ::getpid();
  for (int r = 0; r < n; ++r) {
    std::vector<char*> envp;
    for (std::string& e : envs[static_cast<std::size_t>(r)]) envp.push_back(e.data());
    envp.push_back(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
      for (pid_t p : pids) if (p > 0) ::kill(p, SIGKILL);
      throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    }
    if (pid == 0) {
      // A launcher killed with SIGKILL takes its ranks with it.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(exit_codes::kCrashed);
      ::execve("/proc/self/exe", args.data(), envp.data());
      ::_exit(127);
    }
    pids[static_cast<std::size_t>(r)] = pid;
  }
  log << "started ranks " << first << " to " << first + n - 1 << " of " << world.world_size << " (rendezvous on "
      << (world.nodes > 1 ? world.master_addr : std::string("127.0.0.1")) << ":" << port << ")\n";

  std::vector<int> codes(static_cast<std::size_t>(n), -1);
  int live = n, first_failure = -1;
  bool forwarded_stop = false;
  std::chrono::steady_clock::time_point failed_at;
  while (live > 0) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      for (int r = 0; r < n; ++r) {
        if (pids[static_cast<std::size_t>(r)] != pid) continue;
        const int code = status_code(status);
        codes[static_cast<std::size_t>(r)] = code;
        pids[static_cast<std::size_t>(r)] = -1;
        --live;
        if (code != exit_codes::kSucceeded && code != exit_codes::kStopped && first_failure < 0) {
          first_failure = r;
          failed_at = std::chrono::steady_clock::now();
          log << "rank " << first + r << " ended with status " << code << (WIFSIGNALED(status) ? " (killed by a signal)" : "")
              << ": stopping the other ranks\n";
          for (pid_t p : pids) if (p > 0) ::kill(p, SIGTERM);
        }
      }
      continue;
    }
    if (pid < 0 && errno != EINTR) break;
    if (stop.load() && !forwarded_stop) {
      forwarded_stop = true;  // the ranks agree on the step to stop after (trainer.cpp)
      for (pid_t p : pids) if (p > 0) ::kill(p, SIGTERM);
    }
    if (first_failure >= 0 && std::chrono::steady_clock::now() - failed_at > kGrace) {
      for (pid_t p : pids) if (p > 0) ::kill(p, SIGKILL);
    }
    std::this_thread::sleep_for(kPoll);
  }
  if (first_failure >= 0 && first_failure != 0) {
    // Rank 0 ended because its peer did, or was stopped by us: the peer's status is the job's.
    const int rank0 = codes[0];
    if (rank0 == exit_codes::kSucceeded || rank0 == exit_codes::kStopped || rank0 == exit_codes::kCrashed ||
        rank0 == 1) {
      return codes[static_cast<std::size_t>(first_failure)];
    }
  }
  return codes[0];
}

}  // namespace gammalab::trainer
