#pragma once
// Gates between stages of a study: an arm goes on from a cheap stage (a few small sizes) to the full ladder only
// when its headline interval against a reference arm (the baseline, or a control) clears a stated threshold; an
// arm that does not is dropped, and the gate keeps the evidence that dropped it for the report.
//
// Valid under selection: the gate looks at the estimate, so the data it looked at are biased for the arms it
// lets through (a null arm promoted by a lucky draw). The final verdict must therefore rest on the later stage's
// runs alone — fresh seeds, not the gate's — which is a split between gate data and final data; pooling the
// two would carry the gate's luck into the final interval (tests/core/arm_gate_test.cpp measures both).
#include <string>
#include <vector>

#include "core/scaling/comparison.h"

namespace gammalab {

enum class GateRule {
  kPlausible,  // promote when the interval's upper end reaches the threshold: the arm may still be that good
  kShown,      // promote only when its lower end clears it: the arm is shown to be at least that good
};

struct GateRules {
  double threshold = 1.0;  // a compute multiplier over the reference
  GateRule rule = GateRule::kPlausible;
  std::string reference = "baseline";
};

struct GateDecision {
  std::string arm;
  std::string reference;
  bool promoted = false;
  Estimate evidence;  // the headline multiplier over the reference the gate read
  bool has_interval = false;
  std::string why;    // "its interval [0.61, 0.93] lies below 1.00×"
};

// One decision per arm compared with `rules.reference` among `comparisons` (a fit's, or the law-free ones of a
// stage too small for a law, core/scaling/law_free_comparison.h), in their order. An arm without an interval
// (too few seeds to bound) is promoted only by the plausible rule, and says so: a gate that cannot see does not
// drop.
std::vector<GateDecision> gate_arms(const std::vector<Comparison>& comparisons, const GateRules& rules);

}  // namespace gammalab
