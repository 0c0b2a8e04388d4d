#pragma once
// What a program of the user's own (a command job, docs/own-program.md) must keep to for its metric lines to be
// stored and its attempt to succeed, checked line by line as the worker relays them. gammalab-train keeps the
// same rules by construction; a user's program is checked, because a curve with a hole, a step that goes back or
// a line the worker could not read would otherwise be stored as if it were whole.
//   - a metric line is the JSON of core/metric.h, at most kMaxChildLineBytes (1 MiB), with finite numbers or the strings
//     "nan", "inf", "-inf" (a bare NaN, as Python's json.dumps writes it, is not JSON);
//   - its step is in [0, steps], never before the last line's, and a metric is not given twice at one step;
//   - lines come at least every log_every steps: from step 0 (or from the last step the coordinator stores, on a
//     resume) no two consecutive lines are further apart, so a resume from a checkpoint newer than what is
//     stored, which would leave a hole, is caught at its first line;
//   - a resumed attempt may print again what the coordinator stores (from its checkpoint on): those points are
//     dropped here, never stored twice or changed;
//   - exit 0 only once a line at step == steps was printed: the run showed its end.
// A breach stops the program and fails the job without another attempt, naming the rule, the step and the value.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/metric.h"
#include "core/metric_replay.h"
#include "worker/child_process.h"

namespace gammalab {

class ProgramContract {
 public:
  // `stored`: what the coordinator stores of the job (the lease's word); `steps` and `log_every`: its config's.
  ProgramContract(StoredMetrics stored, std::int64_t steps, std::int64_t log_every);

  // One line of the program's stdout (`cut`: it was longer than kMaxChildLineBytes and this is its head). Returns the
  // points to relay (none for a line that is not a metric line, or one the coordinator already stores); sets
  // breach() and returns none when the line breaks the contract.
  std::vector<MetricPoint> admit(const std::string& line, bool cut);

  // The last step the coordinator stored when the attempt began (-1: none): GAMMALAB_STORED_THROUGH_STEP.
  std::int64_t stored_through_step() const { return stored_.last_step; }
  // Empty while the program keeps the contract; else what it broke, in words.
  const std::string& breach() const { return breach_; }
  // Why an exit with status 0 is not a success (the run never reached its last step), or empty.
  std::string unfinished() const;

 private:
  void broke(std::string why) { if (breach_.empty()) breach_ = std::move(why); }

  StoredMetrics stored_;
  std::int64_t steps_;
  std::int64_t log_every_;
  std::int64_t last_step_;               // the last step stored or relayed; -1 before any
  std::set<std::string> names_at_last_;  // the metrics given at last_step_
  std::set<std::string> user_names_;     // the metrics of its own it gave (metric_names::is_user_metric)
  std::string breach_;
};

}  // namespace gammalab
