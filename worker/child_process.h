#pragma once
// A child process with its stdout on a pipe (read line by line) and its stderr appended to a log file. Its stdin
// is /dev/null, or a pipe the parent writes lines into without ever waiting (offer_line).
#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace gammalab {

enum class ChildStdin { kNull, kPipe };

// As the stderr descriptor: the child's stderr goes into its stdout pipe, read by read_line with it (a program of
// the user's own, whose every byte the reader must see to bound what reaches the log).
inline constexpr int kStderrToStdout = -2;

// The longest stdout line read whole: a longer one is returned cut to this (line_was_cut()), the rest of it
// skipped, so that a child printing without newlines cannot make the reader hold unbounded memory.
inline constexpr std::size_t kMaxChildLineBytes = std::size_t{1} << 20;

class ChildProcess {
 public:
  // Starts argv[0] (a path) with the current environment plus `extra_env` ("NAME=value"). The child is
  // killed if the thread that started it dies, so keep that thread alive while the child runs.
  // stderr is appended to `stderr_path`. Throws std::runtime_error if the process cannot be started.
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env,
               const std::string& stderr_path);
  // The same, with stderr going to `stderr_fd`, a descriptor the caller opened and keeps (it is not closed), or
  // into the stdout pipe (kStderrToStdout).
  ChildProcess(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env, int stderr_fd,
               ChildStdin in = ChildStdin::kNull);
  ~ChildProcess();  // kills (SIGKILL) and reaps the child if it is still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Next line of stdout without the newline; nullopt at end of stream (the child closed stdout or exited).
  std::optional<std::string> read_line();
  // Whether the line read_line returned last was longer than kMaxChildLineBytes (and is its head).
  bool line_was_cut() const { return cut_; }
  // Writes `line` and a newline to the child's stdin (ChildStdin::kPipe) if the pipe takes it whole now; false
  // when it does not (full: the child is not reading; closed: it exited) or there is no pipe. Never blocks, so
  // a child that does not read cannot stall the caller. Safe beside read_line on another thread.
  bool offer_line(const std::string& line);
  void signal(int sig);
  // Waits for the child; returns its exit code, or 128 + signal number if a signal ended it.
  int wait();
  int pid() const { return pid_; }

 private:
  void start(const std::vector<std::string>& argv, const std::vector<std::string>& extra_env, int stderr_fd,
             ChildStdin in);

  int pid_ = -1;
  int stdout_fd_ = -1;
  int stdin_fd_ = -1;  // the pipe's write end (ChildStdin::kPipe), non-blocking
  std::atomic<bool> reaped_{false};
  int status_ = 0;
  std::string buffer_;
  bool cut_ = false;       // the last line returned was cut
  bool skipping_ = false;  // dropping the rest of a cut line, up to its newline
};

}  // namespace gammalab
