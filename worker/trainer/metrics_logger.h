#pragma once
// Metric lines (core/metric.h format) and event lines on stdout, one JSON object per line, flushed per line.
// What the coordinator already stores (the lease's word, core/metric_replay.h) is neither printed nor kept: a
// resumed run that trains again the steps after its checkpoint sends no point twice. Of the rest it keeps the
// lines the coordinator may not have yet, for the next checkpoint (checkpoint.h): every one on its own, only
// those from the step the worker last reported stored (forget_stored_before) under a worker, so that a
// checkpoint holds about the lines since the one before it, not the whole run's. A run that writes no
// checkpoint keeps none.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/metric_replay.h"

namespace gammalab::trainer {

class MetricsLogger {
 public:
  // `keep_lines`: whether a checkpoint will ask for the lines (the run has a checkpoint directory).
  explicit MetricsLogger(std::ostream& out, StoredMetrics stored = {}, bool keep_lines = true)
      : out_(out), stored_(std::move(stored)), keep_lines_(keep_lines), stored_before_(std::max<std::int64_t>(0, stored_.last_step)) {}
  void metrics(std::int64_t step, std::int64_t tokens, const std::map<std::string, double>& values);
  void event(const nlohmann::json& object);  // must not have a "metrics" key
  // The lines kept: what a checkpoint holds.
  std::vector<std::string> unstored() const;
  // A checkpoint's lines after a resume, printed and kept as if printed now.
  void replay(const std::vector<std::string>& lines);
  // The coordinator stores every line before `step` (the worker said so): they need not be kept any longer.
  // Lines come in step order, so they are the front of the queue.
  void forget_stored_before(std::int64_t step);
  // Every line before this step is stored (the lease's word, then the worker's); the kept lines are the rest.
  // A checkpoint records it, so that a resume can tell whether the lines it keeps reach back to what the
  // coordinator stores then (checkpoint_resume_check.h).
  std::int64_t stored_before() const { return stored_before_; }

 private:
  // Prints the part of `line` (of `step`) the coordinator lacks and keeps the line unless it has all of it.
  void emit(std::int64_t step, std::string line);
  void keep(std::int64_t step, std::string line);

  struct Line {
    std::int64_t step = 0;
    std::string text;
  };
  std::ostream& out_;
  const StoredMetrics stored_;
  const bool keep_lines_;
  std::deque<Line> kept_;
  std::int64_t stored_before_ = 0;
};

}  // namespace gammalab::trainer
