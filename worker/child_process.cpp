#include "worker/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace gammalab {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                           const std::string& stderr_path) {
  const int stderr_fd = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (stderr_fd < 0) throw std::runtime_error("cannot open " + stderr_path + ": " + std::strerror(errno));
  try {
    start(argv, extra_env, stderr_fd);
  } catch (...) {
    close(stderr_fd);
    throw;
  }
  close(stderr_fd);
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                           int stderr_fd) {
  start(argv, extra_env, stderr_fd);
}

void ChildProcess::start(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                         int stderr_fd) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& extra : extra_env) overridden |= extra.rfind(name + "=", 0) == 0;
    if (!overridden) env_strings.push_back(std::move(entry));
  }
  env_strings.insert(env_strings.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ == 0) {
    // In the child: only async-signal-safe calls until exec.
    setpgid(0, 0);                     // its own process group: a signal to it reaches what it starts
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the thread that started it (a killed worker leaves no orphans)
    if (getppid() != parent) _exit(127);
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(stderr_fd, STDERR_FILENO);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    execve(args[0], args.data(), envp.data());
    const char message[] = "exec failed\n";
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    _exit(127);
  }
  const int fork_errno = errno;
  close(pipe_fds[1]);
  if (pid_ < 0) {
    close(pipe_fds[0]);
    throw std::runtime_error("cannot start " + argv.front() + ": " + std::strerror(fork_errno));
  }
  stdout_fd_ = pipe_fds[0];
}

ChildProcess::~ChildProcess() {
  if (!reaped_ && pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    wait();
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

std::optional<std::string> ChildProcess::read_line() {
  while (true) {
    if (auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    char chunk[65536];
    const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (buffer_.empty()) return std::nullopt;
      std::string rest = std::move(buffer_);  // a last line without newline
      buffer_.clear();
      return rest;
    }
  }
}

void ChildProcess::signal(int sig) {
  if (!reaped_ && pid_ > 0) ::kill(-pid_, sig);
}

int ChildProcess::wait() {
  if (!reaped_) {
    while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return -1;
}

}  // namespace gammalab
