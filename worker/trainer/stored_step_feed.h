#pragma once
// The worker's word on what the coordinator stores, read from the trainer's stdin (`run --stored-steps-on-stdin`):
// one decimal step per line, the step of a metric line the coordinator stored with every line printed before it
// (worker/metric_relay.h). A checkpoint then keeps only the lines from that step on (metrics_logger.h). A line that
// is not such a step is ignored: the word only lets a checkpoint keep less, and a later one supersedes it.
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

namespace gammalab::trainer {

class StoredStepFeed {
 public:
  // Starts reading `fd` on a thread of its own, detached: the worker keeps stdin open while the trainer runs,
  // and the read ends with the process.
  explicit StoredStepFeed(int fd);
  // Every metric line before this step is stored: the highest step read so far, 0 before the first.
  const std::atomic<std::int64_t>& stored_before() const { return *stored_before_; }

  // One line of the feed: its step, or -1 when it is not a decimal step in [0, limits::kMaxSteps].
  static std::int64_t parse_line(const std::string& line);

 private:
  std::shared_ptr<std::atomic<std::int64_t>> stored_before_ = std::make_shared<std::atomic<std::int64_t>>(0);
};

}  // namespace gammalab::trainer
