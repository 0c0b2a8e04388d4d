// What `gammalab fit --gate X` prints (cli/arm_gate_view.h).
#include "cli/arm_gate_view.h"

#include <cmath>
#include <sstream>

#include "cli/number_text.h"
#include "cli/table.h"
#include "cli/terminal.h"

namespace gammalab::cli {

namespace {

const char* rule_name(GateRule rule) { return rule == GateRule::kShown ? "shown" : "plausible"; }

std::string rule_text(const GateRules& rules) {
  const std::string threshold = fixed(rules.threshold, 2) + "×";
  return rules.rule == GateRule::kShown ? "promoted when its interval's lower end clears " + threshold
                                        : "promoted while its interval's upper end reaches " + threshold;
}

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace

std::string render_gate(const std::vector<GateDecision>& decisions, const GateRules& rules, int resamples) {
  std::ostringstream head;
  head << "gate: each arm over " << rules.reference << ", " << rule_text(rules) << " (law-free multipliers, "
       << resamples << " paired bootstrap resamples)\n";
  std::string text = wrap_prose(head.str(), output_columns());
  if (decisions.empty()) return text + "  no arm is compared with " + rules.reference + "\n";
  using Align = TextTable::Align;
  TextTable table({{"arm", Align::kLeft, 0, true}, {"gate", Align::kLeft}, {"m", Align::kRight},
                   {"interval", Align::kLeft}});
  std::ostringstream why;
  for (const GateDecision& d : decisions) {
    table.add_row({d.arm, d.promoted ? "promoted" : "dropped", fixed(d.evidence.value, 2) + "×",
                   d.has_interval ? "[" + fixed(d.evidence.lo, 2) + ", " + fixed(d.evidence.hi, 2) + "]" : "-"});
    why << "  " << d.arm << ": " << d.why << "\n";
  }
  return text + "\n" + table.render_fitted(output_columns()) + "\n" + wrap_prose(why.str(), output_columns()) +
         wrap_prose("(the next stage's verdict is to rest on its own fresh runs, not on these: the gate looked at "
                    "them)\n",
                    output_columns());
}

nlohmann::json gate_json(const std::vector<GateDecision>& decisions, const GateRules& rules, int resamples) {
  nlohmann::json arms = nlohmann::json::array();
  for (const GateDecision& d : decisions) {
    arms.push_back({{"arm", d.arm},
                    {"reference", d.reference},
                    {"promoted", d.promoted},
                    {"multiplier", number_or_null(d.evidence.value)},
                    {"lo", d.has_interval ? number_or_null(d.evidence.lo) : nlohmann::json(nullptr)},
                    {"hi", d.has_interval ? number_or_null(d.evidence.hi) : nlohmann::json(nullptr)},
                    {"why", d.why}});
  }
  return {{"threshold", rules.threshold}, {"rule", rule_name(rules.rule)}, {"reference", rules.reference},
          {"resamples", resamples}, {"arms", std::move(arms)}};
}

}  // namespace gammalab::cli
