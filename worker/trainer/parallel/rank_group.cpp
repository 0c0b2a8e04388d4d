#include "worker/trainer/parallel/rank_group.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "core/exit_codes.h"

extern char** environ;

namespace gammalab::trainer {

namespace {

int status_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return exit_codes::kCrashed;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

RankGroup::RankGroup(const std::string& path, const std::vector<std::string>& argv, std::vector<Rank> ranks,
                     int first_rank, std::ostream& log)
    : pids_(ranks.size(), -1), codes_(ranks.size(), -1), first_rank_(first_rank), log_(log) {
  // Everything exec needs is built before fork: the child may only make async-signal-safe calls.
  std::vector<std::string> args = argv;
  const std::vector<char*> arg_pointers = pointers(args);
  std::vector<std::vector<char*>> env_pointers;
  for (Rank& r : ranks) env_pointers.push_back(pointers(r.env));
  const pid_t parent = ::getpid();
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const int output = ranks[r].output_fd;
    const pid_t pid = ::fork();
    if (pid < 0) {
      const int fork_errno = errno;
      for (pid_t p : pids_) if (p > 0) ::kill(p, SIGKILL);
      for (pid_t p : pids_) if (p > 0) ::waitpid(p, nullptr, 0);
      pids_.assign(pids_.size(), -1);
      throw std::runtime_error(std::string("fork failed: ") + std::strerror(fork_errno));
    }
    if (pid == 0) {
      // A launcher killed with SIGKILL takes its ranks with it.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(exit_codes::kCrashed);
      if (output >= 0 && (::dup2(output, STDOUT_FILENO) < 0 || ::dup2(output, STDERR_FILENO) < 0)) ::_exit(127);
      ::execve(path.c_str(), arg_pointers.data(), env_pointers[r].data());
      ::_exit(127);
    }
    pids_[r] = pid;
    ++live_;
  }
}

RankGroup::~RankGroup() {
  for (pid_t p : pids_) if (p > 0) ::kill(p, SIGKILL);
  for (pid_t p : pids_) if (p > 0) ::waitpid(p, nullptr, 0);
}

void RankGroup::poll() {
  for (;;) {
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid <= 0) break;
    for (std::size_t r = 0; r < pids_.size(); ++r) {
      if (pids_[r] != pid) continue;
      const int code = status_code(status);
      codes_[r] = code;
      pids_[r] = -1;
      --live_;
      if (code == exit_codes::kSucceeded || code == exit_codes::kStopped) continue;
      log_ << "rank " << first_rank_ + static_cast<int>(r) << " ended with status " << code
           << (WIFSIGNALED(status) ? " (killed by a signal)" : "");
      failures_.push_back(static_cast<int>(r));
      if (failures_.size() == 1) {
        failed_at_ = std::chrono::steady_clock::now();
        log_ << ": stopping the other ranks";
        terminate();
      }
      log_ << std::endl;
    }
  }
  if (!failures_.empty() && std::chrono::steady_clock::now() - failed_at_ > kGrace) {
    for (pid_t p : pids_) if (p > 0) ::kill(p, SIGKILL);
  }
}

void RankGroup::terminate() {
  for (pid_t p : pids_) if (p > 0) ::kill(p, SIGTERM);
}

std::vector<std::string> RankGroup::environment_without(const std::vector<std::string>& names) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool set_here = false;
    for (const std::string& n : names) set_here = set_here || name == n;
    if (!set_here) env.emplace_back(entry);
  }
  return env;
}

int RankGroup::status() const {
  // The first rank that failed with a status of its own. A rank that ended with 1 or by a signal is most often
  // the consequence of another's failure (its collective or socket lost the peer, or our SIGTERM reached it), and
  // two ranks that end within one poll are reaped in no particular order: the specific status says more.
  for (const int r : failures_) {
    const int code = codes_[static_cast<std::size_t>(r)];
    if (code != 1 && code != exit_codes::kCrashed) return code;
  }
  if (!failures_.empty()) return codes_[static_cast<std::size_t>(failures_.front())];
  return codes_.empty() ? exit_codes::kSucceeded : codes_[0];
}

}  // namespace gammalab::trainer
