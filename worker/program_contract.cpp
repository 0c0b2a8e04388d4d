#include "worker/program_contract.h"

#include <algorithm>
#include <stdexcept>

#include "core/metric_check.h"
#include "core/metric_names.h"
#include "core/utf8_text.h"

namespace gammalab {

ProgramContract::ProgramContract(StoredMetrics stored, std::int64_t steps, std::int64_t log_every)
    : stored_(std::move(stored)), steps_(steps), log_every_(std::max<std::int64_t>(1, log_every)),
      last_step_(stored_.last_step) {}

std::vector<MetricPoint> ProgramContract::admit(const std::string& line, bool cut) {
  if (!breach_.empty()) return {};
  if (cut) {
    broke("a line of more than " + std::to_string(kMaxChildLineBytes) + " bytes (the limit of one line), starting '" +
          utf8_without_controls(utf8_head(line, 80)) + "'");
    return {};
  }
  std::optional<std::vector<MetricPoint>> parsed;
  try {
    parsed = parse_metric_line(line);
  } catch (const std::invalid_argument& e) {
    broke(std::string("a malformed metric line (") + e.what() + "): " + utf8_without_controls(utf8_head(line, 200)));
    return {};
  }
  if (!parsed) {
    // Not JSON, yet it looks like a metric line: left to the log, a curve would lose the point unseen.
    if (!line.empty() && line.front() == '{' && line.find("\"metrics\"") != std::string::npos) {
      broke("a line that names \"metrics\" but is not JSON (a bare NaN or Infinity, as Python's json.dumps writes "
            "them? give the strings \"nan\", \"inf\", \"-inf\"): " + utf8_without_controls(utf8_head(line, 200)));
    }
    return {};
  }
  std::vector<MetricPoint> points = std::move(*parsed);
  if (points.empty()) return {};
  const std::int64_t step = points.front().step;
  const std::string at = "step " + std::to_string(step);
  if (step < 0 || step > steps_) {
    broke("a metric line at " + at + ", outside the job's [0, " + std::to_string(steps_) + "] (its steps)");
    return {};
  }
  for (const MetricPoint& p : points) {
    // gammalab-train's word to the coordinator that a branch may start from its checkpoint (docs/branches.md).
    if (p.name == metric_names::kBranchPoint) {
      broke("metric '" + p.name + "' at " + at + ": gammalab-train's word that a cooldown branch may start, not a "
            "program's to give");
      return {};
    }
    // What the job's processes use is measured by the worker (worker/process_usage.h), not claimed by them.
    if (std::find(metric_names::kSystem.begin(), metric_names::kSystem.end(), p.name) != metric_names::kSystem.end()) {
      broke("metric '" + p.name + "' at " + at + ": the worker measures it, a program does not report it");
      return {};
    }
    if (const std::string error = metric_point_error(p); !error.empty()) {
      broke(error);
      return {};
    }
    if (metric_names::is_user_metric(p.name) && user_names_.insert(p.name).second &&
        user_names_.size() > metric_names::kMaxUserMetricsPerJob) {
      broke("metric '" + p.name + "' at " + at + ": more than " + std::to_string(metric_names::kMaxUserMetricsPerJob) +
            " metrics of its own (" + std::string(metric_names::kUserPrefix) + "NAME), the limit per job");
      return {};
    }
  }
  // Lines of this attempt, and of the stored curve before it, in order and without a hole.
  const std::int64_t previous = std::max<std::int64_t>(last_step_, 0);
  // Below the stored last step a resumed attempt replays its checkpoint's lines, until it passes that step.
  if (step < last_step_ && last_step_ > stored_.last_step) {
    broke(at + " after step " + std::to_string(last_step_) + ": the steps of a run's lines go back");
    return {};
  }
  if (step > previous + log_every_) {
    broke("no metric line between step " + std::to_string(previous) + " and " + at + ", more than log_every = " +
          std::to_string(log_every_) + " apart: a hole in the curve" +
          (stored_.last_step >= 0 && last_step_ == stored_.last_step
               ? " (a resume must start from a checkpoint at or before GAMMALAB_STORED_THROUGH_STEP = " +
                     std::to_string(stored_.last_step) + ")"
               : ""));
    return {};
  }
  if (step > last_step_) names_at_last_.clear();
  if (step >= last_step_) {
    for (const MetricPoint& p : points) {
      // At the stored last step a resumed attempt gives again what is stored: that is a replay, not a repeat.
      const bool replayed = step == stored_.last_step && last_step_ == stored_.last_step &&
                            std::find(stored_.names_at_last_step.begin(), stored_.names_at_last_step.end(),
                                      p.name) != stored_.names_at_last_step.end();
      if (!replayed && !names_at_last_.insert(p.name).second) {
        broke("metric '" + p.name + "' given twice at " + at);
        return {};
      }
    }
    last_step_ = step;
  }
  // What the coordinator stores already (a resumed attempt's replay from its checkpoint) is not sent again.
  if (step < stored_.last_step) return {};
  if (step == stored_.last_step) {
    std::erase_if(points, [&](const MetricPoint& p) {
      return std::find(stored_.names_at_last_step.begin(), stored_.names_at_last_step.end(), p.name) !=
             stored_.names_at_last_step.end();
    });
  }
  return points;
}

std::string ProgramContract::unfinished() const {
  if (last_step_ >= steps_) return "";
  return "the program exited with status 0, but its last metric line is at step " + std::to_string(last_step_) +
         ", not the job's last step " + std::to_string(steps_) +
         ": a run that does not show its end is not a success";
}

}  // namespace gammalab
