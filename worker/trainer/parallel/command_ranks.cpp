#include "worker/trainer/parallel/command_ranks.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "core/config_error.h"
#include "core/limits.h"
#include "worker/trainer/parallel/rank_group.h"

namespace gammalab::trainer {

namespace {

// Rank 0's lines pass whole up to twice the worker's own limit of one line (worker/child_process.h), so that a
// longer one still reaches the worker as too long, and is refused there as the contract says; another rank's
// line is only read by people, and is cut at 16 KiB.
constexpr std::size_t kRankZeroLineBytes = std::size_t{2} << 20;
constexpr std::size_t kOtherRankLineBytes = std::size_t{16} << 10;
// After the last rank ended, how long a descendant of one (a data loader) may keep its output open.
constexpr auto kDrainAfterExit = std::chrono::seconds(2);
constexpr int kPollMs = 50;

// A port on loopback nobody listens on now, for the program's rank 0 to host its rendezvous at (torchrun picks
// its own the same way: the kernel's choice, released for the rank to bind).
std::uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int error = errno;
  ::close(fd);
  if (!ok) throw std::runtime_error(std::string("no free port on loopback: ") + std::strerror(error));
  return ntohs(address.sin_port);
}

void write_all(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the reader is gone: the worker ends us
    done += static_cast<std::size_t>(n);
  }
}

// One rank's output: bytes in, whole lines out.
class RankLines {
 public:
  RankLines(int rank, int fd) : fd_(fd), limit_(rank == 0 ? kRankZeroLineBytes : kOtherRankLineBytes),
                                prefix_(rank == 0 ? std::string() : "[rank " + std::to_string(rank) + "] ") {}
  ~RankLines() { if (fd_ >= 0) ::close(fd_); }
  RankLines(const RankLines&) = delete;
  RankLines& operator=(const RankLines&) = delete;

  int fd() const { return fd_; }
  // Reads what the pipe has and writes its whole lines to `out_fd`; at end of stream the last, unended line too.
  void read(int out_fd) {
    char chunk[1 << 16];
    const ssize_t n = ::read(fd_, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
    if (n <= 0) {
      if (!buffer_.empty() && !skipping_) emit(out_fd, buffer_);
      buffer_.clear();
      ::close(fd_);
      fd_ = -1;
      return;
    }
    std::size_t at = 0;
    const std::string_view in(chunk, static_cast<std::size_t>(n));
    while (at < in.size()) {
      const std::size_t newline = in.find('\n', at);
      const std::string_view piece = in.substr(at, newline == std::string_view::npos ? in.size() - at : newline - at);
      if (!skipping_) buffer_.append(piece.substr(0, limit_ + 1 - std::min(buffer_.size(), limit_ + 1)));
      if (!skipping_ && buffer_.size() > limit_) {
        buffer_.resize(limit_);
        emit(out_fd, prefix_.empty() ? buffer_ : buffer_ + " [line cut]");
        buffer_.clear();
        skipping_ = true;
      }
      if (newline == std::string_view::npos) break;
      if (!skipping_) emit(out_fd, buffer_);
      buffer_.clear();
      skipping_ = false;
      at = newline + 1;
    }
  }

 private:
  void emit(int out_fd, const std::string& line) const { write_all(out_fd, prefix_ + line + "\n"); }

  int fd_;
  std::size_t limit_;
  std::string prefix_;
  std::string buffer_;
  bool skipping_ = false;  // the rest of a cut line, up to its newline
};

}  // namespace

int run_command_ranks(const CommandRanks& spec, const std::atomic<bool>& stop, std::ostream& log, int out_fd) {
  if (spec.world_size < 1 || spec.world_size > limits::kMaxWorldSize) {
    throw ConfigError("--world-size", "must be in [1, " + std::to_string(limits::kMaxWorldSize) + "], got " +
                                          std::to_string(spec.world_size));
  }
  if (spec.argv.empty() || spec.argv.front().find('/') == std::string::npos) {
    throw ConfigError("PROGRAM", "give the program's path (with a '/'), not '" +
                                     (spec.argv.empty() ? std::string() : spec.argv.front()) + "'");
  }
  const std::uint16_t port = free_loopback_port();
  const std::vector<std::string> inherited = RankGroup::environment_without(
      {"RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "GROUP_RANK"});
  std::vector<RankGroup::Rank> ranks;
  std::vector<std::unique_ptr<RankLines>> outputs;
  std::vector<int> write_ends;
  for (int r = 0; r < spec.world_size; ++r) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      for (int fd : write_ends) ::close(fd);
      throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    outputs.push_back(std::make_unique<RankLines>(r, fds[0]));
    write_ends.push_back(fds[1]);
    std::vector<std::string> env = inherited;
    const std::string world = std::to_string(spec.world_size);
    env.insert(env.end(), {"RANK=" + std::to_string(r), "LOCAL_RANK=" + std::to_string(r), std::string("GROUP_RANK=0"),
                           "WORLD_SIZE=" + world, "LOCAL_WORLD_SIZE=" + world, std::string("MASTER_ADDR=127.0.0.1"),
                           "MASTER_PORT=" + std::to_string(port)});
    ranks.push_back({std::move(env), fds[1]});
  }
  std::optional<RankGroup> group;
  try {
    group.emplace(spec.argv.front(), spec.argv, std::move(ranks), 0, log);
  } catch (...) {
    for (int fd : write_ends) ::close(fd);
    throw;
  }
  for (int fd : write_ends) ::close(fd);  // the ranks hold theirs: a pipe ends when its rank (and its children) do
  log << "started ranks 0 to " << spec.world_size - 1 << " of " << spec.world_size << " of " << spec.argv.front()
      << " (MASTER_ADDR 127.0.0.1, MASTER_PORT " << port << ")" << std::endl;

  // A signal to the group (the worker's way) reaches the ranks itself; one to this process alone is passed on.
  const bool ranks_hear_group_signals = ::getpgrp() == ::getpid();
  bool forwarded_stop = false;
  std::optional<std::chrono::steady_clock::time_point> all_ended;
  for (;;) {
    std::vector<pollfd> fds;
    std::vector<RankLines*> open;
    for (auto& o : outputs) {
      if (o->fd() < 0) continue;
      fds.push_back({o->fd(), POLLIN, 0});
      open.push_back(o.get());
    }
    if (fds.empty() && !group->live()) break;
    if (!fds.empty() && ::poll(fds.data(), fds.size(), kPollMs) > 0) {
      for (std::size_t i = 0; i < fds.size(); ++i) {
        if (fds[i].revents != 0) open[i]->read(out_fd);
      }
    } else if (fds.empty()) {
      ::poll(nullptr, 0, kPollMs);
    }
    group->poll();
    if (stop.load() && !forwarded_stop) {
      forwarded_stop = true;
      if (!ranks_hear_group_signals) group->terminate();
    }
    if (!group->live()) {
      if (!all_ended) all_ended = std::chrono::steady_clock::now();
      if (std::chrono::steady_clock::now() - *all_ended > kDrainAfterExit) break;
    }
  }
  return group->status();
}

}  // namespace gammalab::trainer
