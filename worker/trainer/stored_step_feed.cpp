#include "worker/trainer/stored_step_feed.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <string>
#include <thread>

#include "core/limits.h"

namespace gammalab::trainer {

namespace {
constexpr std::size_t kMaxLineBytes = 32;  // a step has at most 19 digits: a longer line is not one
}

std::int64_t StoredStepFeed::parse_line(const std::string& line) {
  if (line.empty() || line.size() > kMaxLineBytes) return -1;
  std::int64_t step = -1;
  const auto [end, error] = std::from_chars(line.data(), line.data() + line.size(), step);
  if (error != std::errc() || end != line.data() + line.size() || step < 0 || step > limits::kMaxSteps) return -1;
  return step;
}

StoredStepFeed::StoredStepFeed(int fd) {
  std::thread([fd, stored = stored_before_] {
    std::string line;
    bool overlong = false;  // inside a line longer than any step: skipped to its newline
    char chunk[256];
    while (true) {
      const ssize_t n = ::read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      for (ssize_t i = 0; i < n; ++i) {
        if (chunk[i] != '\n') {
          if (line.size() < kMaxLineBytes + 1) line.push_back(chunk[i]); else overlong = true;
          continue;
        }
        const std::int64_t step = overlong ? -1 : parse_line(line);
        std::int64_t seen = stored->load();
        while (step > seen && !stored->compare_exchange_weak(seen, step)) {
        }
        line.clear();
        overlong = false;
      }
    }
  }).detach();
}

}  // namespace gammalab::trainer
