#pragma once
// The processes of one job's ranks on this machine, started together and ended together, as torchrun treats
// them: when one fails, the others get SIGTERM, and SIGKILL after a grace; the job's status is the failed
// rank's (status() says which when several fail), else rank 0's. Used by the trainer's own launcher (rank_launcher.h) and by the launcher of a command
// job's ranks (command_ranks.h).
#include <sys/types.h>

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

namespace gammalab::trainer {

class RankGroup {
 public:
  struct Rank {
    std::vector<std::string> env;  // its whole environment, "NAME=value"
    int output_fd = -1;            // its stdout and stderr; -1: this process's own
  };

  // Starts `path` with `argv` once per rank (ranks first_rank, first_rank + 1, ...), each with its environment
  // and output. The ranks die with this process (SIGKILL); they share its process group, so a signal to the
  // group reaches every rank. Throws std::runtime_error when a fork fails (the ranks started are killed).
  RankGroup(const std::string& path, const std::vector<std::string>& argv, std::vector<Rank> ranks, int first_rank,
            std::ostream& log);
  ~RankGroup();  // kills (SIGKILL) and reaps a rank still running
  RankGroup(const RankGroup&) = delete;
  RankGroup& operator=(const RankGroup&) = delete;

  // Reaps the ranks that ended, without waiting, and applies the policy: the first failure stops the others,
  // and past the grace kills them. Call it every few tens of milliseconds until live() is false.
  void poll();
  // SIGTERM to every rank still running (a stop asked of the job, where the signal did not reach them itself).
  void terminate();
  bool live() const { return live_ > 0; }
  // The job's exit status, once no rank is live: rank 0's when none failed; else the first failed rank's status
  // other than 1 and exit_codes::kCrashed (a signal), which a rank ended by another's failure gets; else the
  // first failed rank's.
  int status() const;

  // This process's environment without the variables named (those a launcher sets for each rank).
  static std::vector<std::string> environment_without(const std::vector<std::string>& names);

  // How long the other ranks get to end on their own (a failed collective ends them) before they are killed.
  static constexpr auto kGrace = std::chrono::seconds(10);

 private:
  std::vector<pid_t> pids_;
  std::vector<int> codes_;
  int first_rank_ = 0;
  int live_ = 0;
  std::vector<int> failures_;  // the ranks (indices) that failed, in the order they were reaped
  std::chrono::steady_clock::time_point failed_at_;
  std::ostream& log_;
};

}  // namespace gammalab::trainer
