// Gates between stages of a study (core/scaling/arm_gate.h).
#include "core/scaling/arm_gate.h"

#include "core/number_format.h"
#include "core/scaling/verdict.h"

namespace gammalab {

namespace {

std::string interval_text(const Estimate& e) { return "[" + fixed(e.lo, 2) + ", " + fixed(e.hi, 2) + "]"; }

}  // namespace

std::vector<GateDecision> gate_arms(const std::vector<Comparison>& comparisons, const GateRules& rules) {
  std::vector<GateDecision> out;
  const std::string threshold = fixed(rules.threshold, 2) + "×";
  for (const Comparison& c : comparisons) {
    if (c.baseline != rules.reference) continue;
    const HeadlineMultiplier h = headline_multiplier(c);
    GateDecision d{c.variant, c.baseline, false, h.estimate, h.has_interval(), ""};
    if (!d.has_interval) {
      d.promoted = rules.rule == GateRule::kPlausible;
      d.why = std::string("no interval to judge (too few seeds to bound): ") +
              (d.promoted ? "promoted, a gate that cannot see does not drop" : "not shown, so not promoted");
    } else if (rules.rule == GateRule::kPlausible) {
      d.promoted = h.estimate.hi >= rules.threshold;
      d.why = "its interval " + interval_text(h.estimate) +
              (d.promoted ? " reaches " + threshold : " lies below " + threshold);
    } else {
      d.promoted = h.estimate.lo >= rules.threshold;
      d.why = "its interval " + interval_text(h.estimate) +
              (d.promoted ? " clears " + threshold : " does not clear " + threshold);
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace gammalab
