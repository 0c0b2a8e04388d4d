#include "worker/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace gammalab {

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                           const std::string& stderr_path) {
  const int stderr_fd = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (stderr_fd < 0) throw std::runtime_error("cannot open " + stderr_path + ": " + std::strerror(errno));
  try {
    start(argv, extra_env, stderr_fd, ChildStdin::kNull);
  } catch (...) {
    close(stderr_fd);
    throw;
  }
  close(stderr_fd);
}

ChildProcess::ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                           int stderr_fd, ChildStdin in) {
  start(argv, extra_env, stderr_fd, in);
}

void ChildProcess::start(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
                         int stderr_fd, ChildStdin in) {
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  int stdin_fds[2] = {-1, -1};
  if (in == ChildStdin::kPipe && pipe2(stdin_fds, O_CLOEXEC) != 0) {
    const int pipe_errno = errno;
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    throw std::runtime_error(std::string("pipe: ") + std::strerror(pipe_errno));
  }
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
    dup2(stderr_fd == kStderrToStdout ? pipe_fds[1] : stderr_fd, STDERR_FILENO);
    if (stdin_fds[0] >= 0) {
      dup2(stdin_fds[0], STDIN_FILENO);
    } else {
      const int null_fd = open("/dev/null", O_RDONLY);
      if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    }
    execve(args[0], args.data(), envp.data());
    const char message[] = "exec failed\n";
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    _exit(127);
  }
  const int fork_errno = errno;
  close(pipe_fds[1]);
  if (stdin_fds[0] >= 0) close(stdin_fds[0]);
  if (pid_ < 0) {
    close(pipe_fds[0]);
    if (stdin_fds[1] >= 0) close(stdin_fds[1]);
    throw std::runtime_error("cannot start " + argv.front() + ": " + std::strerror(fork_errno));
  }
  stdout_fd_ = pipe_fds[0];
  stdin_fd_ = stdin_fds[1];
  // A full pipe (a child that does not read) makes offer_line return false rather than wait.
  if (stdin_fd_ >= 0) fcntl(stdin_fd_, F_SETFL, fcntl(stdin_fd_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  if (!reaped_ && pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    wait();
  }
  if (stdout_fd_ >= 0) close(stdout_fd_);
  if (stdin_fd_ >= 0) close(stdin_fd_);
}

bool ChildProcess::offer_line(const std::string& line) {
  if (stdin_fd_ < 0 || reaped_) return false;
  const std::string text = line + '\n';
  // Up to PIPE_BUF bytes a pipe write is all or nothing: no half line for the child to read.
  if (text.size() > PIPE_BUF) return false;
  ssize_t n;
  do {
    n = ::write(stdin_fd_, text.data(), text.size());
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(text.size());
}

std::optional<std::string> ChildProcess::read_line() {
  cut_ = false;
  while (true) {
    if (skipping_) {  // the rest of a cut line: dropped up to its newline
      const auto nl = buffer_.find('\n');
      buffer_.erase(0, nl == std::string::npos ? buffer_.size() : nl + 1);
      skipping_ = nl == std::string::npos;
    }
    if (auto nl = buffer_.find('\n'); nl != std::string::npos && nl <= kMaxChildLineBytes) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (buffer_.size() > kMaxChildLineBytes) {
      std::string head = buffer_.substr(0, kMaxChildLineBytes);
      buffer_.erase(0, kMaxChildLineBytes);
      skipping_ = true;
      cut_ = true;
      return head;
    }
    char chunk[65536];
    const ssize_t n = ::read(stdout_fd_, chunk, sizeof chunk);
    if (n > 0) {
      buffer_.append(chunk, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      if (buffer_.empty() || skipping_) return std::nullopt;
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
