#pragma once
// What `gammalab plan FILE --next` prints: the moves that would grow the sweep's design, valued by simulation
// (core/scaling/next_move.h), the best first; with a target width, the greedy path to it and the fixed design
// that reaches the same width. And what `gammalab fit --next` prints after a verdict (core/scaling/adaptive_step.h).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/scaling/adaptive_step.h"
#include "core/scaling/next_move.h"

namespace gammalab::cli {

struct NextMoveReport {
  PowerDesign design;   // the sweep's design and the noise it is simulated at
  int arms = 2;         // runs per paired seed
  std::vector<MoveValue> ranked;
  std::optional<double> target;  // hi/lo asked for
  std::optional<MovePlan> path;
  std::optional<FixedDesign> fixed;
  double budget = 0.0;  // FLOPs the path may add (infinite: no budget)
};

// "one more paired seed at 1.00e+12 FLOPs", "a new size at 3.16e+14 FLOPs, above the largest"
std::string move_text(const Move& move);

std::string render_next_move(const NextMoveReport& report);
nlohmann::json next_move_json(const NextMoveReport& report);

// `gammalab fit --next`: the study's next step after the fit, "next: …" or "stop: …", with why.
std::string render_decision(const AdaptiveDecision& decision, double target_width);
nlohmann::json decision_json(const AdaptiveDecision& decision, double target_width);

}  // namespace gammalab::cli
