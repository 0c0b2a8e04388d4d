#pragma once
// A one-node Slurm cluster for tests, from Debian's slurm-wlm and munge: munged, slurmctld and slurmd started
// on loopback with their own key, sockets, ports, state and spool directories under a temporary directory, and
// the Slurm commands (sbatch, squeue, scancel, sinfo) pointed at it through SLURM_CONF. Run as root (SlurmUser
// root), as CI does. Every daemon it started is stopped by the destructor, jobs first.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "worker/child_process.h"

namespace gammalab::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout; stderr goes to DIR/commands.log
};

class SlurmDaemons {
 public:
  // Starts munged, slurmctld and slurmd and waits until the node is idle. Throws std::runtime_error naming the
  // daemon and its log when one does not come up.
  SlurmDaemons();
  ~SlurmDaemons();
  SlurmDaemons(const SlurmDaemons&) = delete;
  SlurmDaemons& operator=(const SlurmDaemons&) = delete;

  // Runs a Slurm command (e.g. {"sbatch", ...}) against this cluster, with `extra_env` added to its environment.
  CommandResult command(std::vector<std::string> argv, const std::vector<std::string>& extra_env = {});
  // Jobs still known to slurmctld as pending, running or completing ("" once none are).
  std::string queue();
  const std::filesystem::path& dir() const { return dir_; }
  std::string slurm_conf() const { return (dir_ / "slurm.conf").string(); }
  std::string env() const { return "SLURM_CONF=" + slurm_conf(); }
  bool keep_files = false;  // set by a failing test: the logs stay for reading

 private:
  void write_config();
  std::unique_ptr<ChildProcess> start(const std::string& name, std::vector<std::string> argv);

  std::filesystem::path dir_;
  int controller_port_ = 0, node_port_ = 0;
  std::unique_ptr<ChildProcess> munged_, slurmctld_, slurmd_;
};

}  // namespace gammalab::testing
