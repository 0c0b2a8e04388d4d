#include "core/branch_point.h"

#include <absl/strings/str_join.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <vector>

#include "core/decimal_text.h"
#include "core/lr_schedule.h"

namespace gammalab {

namespace {

// The fields that do not shape the state after step s, given equal LR multipliers up to s (checked apart):
// the length and decay, and what is only observed or only changes reduction order across threads and ranks.
constexpr std::array<std::string_view, 10> kFreeFields = {
    "steps",       "schedule.decay_start", "schedule.decay_steps", "log_every", "eval_every",
    "ckpt_every",  "sharpness_every",      "threads",              "world_size", "nodes"};

bool is_free(const std::string& path) {
  for (std::string_view free : kFreeFields) {
    if (path == free) return true;
  }
  return false;
}

// The dot paths below `path` where the two JSON objects differ (a key in only one of them counts).
void differing_fields(const nlohmann::json& a, const nlohmann::json& b, const std::string& path,
                      std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    for (const auto& [key, value] : a.items()) {
      const std::string child = path.empty() ? key : path + "." + key;
      if (is_free(child)) continue;
      if (!b.contains(key)) {
        out.push_back(child);
      } else {
        differing_fields(value, b.at(key), child, out);
      }
    }
    for (const auto& [key, value] : b.items()) {
      const std::string child = path.empty() ? key : path + "." + key;
      if (!a.contains(key) && !is_free(child)) out.push_back(child);
    }
    return;
  }
  if (a != b) out.push_back(path);
}

}  // namespace

std::string branch_point_mismatch(const JobConfig& parent, const JobConfig& branch, std::int64_t step) {
  if (step < 1 || step >= branch.steps) {
    return "the branch point, step " + std::to_string(step) + ", is not inside the branch's run of " +
           std::to_string(branch.steps) + " steps";
  }
  if (step > parent.steps) {
    return "the branch point, step " + std::to_string(step) + ", is past the end of its parent's run (" +
           std::to_string(parent.steps) + " steps)";
  }
  std::vector<std::string> fields;
  differing_fields(to_json(parent), to_json(branch), "", fields);
  if (!fields.empty()) {
    if (fields.size() > 5) fields.resize(5);
    return "the branch's config differs from its parent's in " + absl::StrJoin(fields, ", ");
  }
  // The multipliers are compared where either schedule changes piece (the warmup's end, a WSD decay's start)
  // and at the branch point: between those each is constant, linear or a monotone cosine of the same kind,
  // warmup and floor (checked above), so equal ends mean equal in between, and the work does not grow with s.
  std::vector<double> at = {1, double(step), double(parent.schedule.warmup_steps),
                            double(parent.schedule.warmup_steps + 1)};
  if (parent.schedule.kind == ScheduleKind::Wsd) {
    for (const double start : {wsd_decay_start(parent.schedule, parent.steps), wsd_decay_start(branch.schedule, branch.steps)}) {
      at.push_back(std::floor(start));
      at.push_back(std::floor(start) + 1);
    }
  }
  std::sort(at.begin(), at.end());
  for (const double candidate : at) {
    if (candidate < 1 || candidate > double(step)) continue;
    const auto k = static_cast<std::int64_t>(candidate);
    const double ours = lr_multiplier(branch.schedule, k, branch.steps);
    const double theirs = lr_multiplier(parent.schedule, k, parent.steps);
    if (ours != theirs) {
      return "the learning rate differs at step " + std::to_string(k) + " (the parent's multiplier " +
             number_text(theirs) + ", the branch's " + number_text(ours) +
             "): a branch starts from a WSD run's stable phase, before its decay and with the same warmup";
    }
  }
  return {};
}

}  // namespace gammalab
