#pragma once
// What a resumed trainer prints again of the metric lines its checkpoint keeps. The coordinator stores a prefix
// of what a job printed, in order (the worker relays lines in order, fenced by attempt), so "what it has" is
// told by two things: the last step it stores any point of, and which metrics it stores at that step. Every
// point before that step is stored; at it, the named ones are (a line may have been stored in part: the relay's
// batches need not end at a line's end). The lease carries this (LeaseJobResponse.stored), the worker hands it
// to the trainer, and a resume prints only the rest: work in proportion to what was lost, not to the run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gammalab {

struct StoredMetrics {
  std::int64_t last_step = -1;  // -1: nothing is stored
  std::vector<std::string> names_at_last_step;
};

// Empty when `stored` is something a coordinator can say: a step in [0, limits::kMaxSteps] and at most
// limits::kMaxMetricNames distinct metrics gammalab-train reports; otherwise why not, naming the field, the
// limit and the value. The worker checks a lease's word with it before it hands it to a trainer.
std::string stored_metrics_error(const StoredMetrics& stored);

// The part of the metric line `line` the coordinator does not store, as a metric line: the line itself when
// it has none of it, the line without the stored metrics when it has some, nullopt when it has all of it.
// Throws std::invalid_argument for a line that is not a well-formed metric line.
std::optional<std::string> unstored_part(const std::string& line, const StoredMetrics& stored);

}  // namespace gammalab
