// `gammalab fit --gate`'s output as printed (cli/arm_gate_view.h): the rule in words, a row per arm with its
// decision and interval, the evidence, and the reminder that the next stage's verdict rests on fresh runs.
#include "cli/arm_gate_view.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gammalab::cli {
namespace {

std::vector<GateDecision> decisions() {
  GateDecision good;
  good.arm = "unified";
  good.reference = "baseline";
  good.promoted = good.has_interval = true;
  good.evidence.value = 1.31;
  good.evidence.lo = 1.12;
  good.evidence.hi = 1.52;
  good.why = "its interval [1.12, 1.52] reaches 1.05×";
  GateDecision blind = good;
  blind.arm = "dyt";
  blind.has_interval = false;
  blind.evidence.value = 0.9;
  blind.evidence.lo = blind.evidence.hi = std::nan("");
  blind.why = "no interval to judge (too few seeds to bound): promoted, a gate that cannot see does not drop";
  return {good, blind};
}

TEST(ArmGateView, ItStatesTheRuleThenEachArmsDecisionAndEvidence) {
  const GateRules rules{1.05, GateRule::kPlausible, "baseline"};
  const std::string text = render_gate(decisions(), rules, 200);
  EXPECT_EQ(text.rfind("gate: each arm over baseline, promoted while its interval's upper end reaches 1.05×", 0), 0u)
      << text;
  EXPECT_NE(text.find("unified  promoted  1.31×  [1.12, 1.52]"), std::string::npos) << text;
  EXPECT_NE(text.find("dyt      promoted  0.90×  -"), std::string::npos) << text;
  EXPECT_NE(text.find("  dyt: no interval to judge"), std::string::npos) << text;
  EXPECT_NE(text.find("rest on its own fresh runs"), std::string::npos);
  const nlohmann::json j = gate_json(decisions(), {1.05, GateRule::kShown, "baseline"}, 200);
  EXPECT_EQ(j["rule"], "shown");
  EXPECT_EQ(j["arms"][0]["promoted"], true);
  EXPECT_TRUE(j["arms"][1]["lo"].is_null());
  EXPECT_EQ(render_gate({}, rules, 200).find("no arm is compared with baseline") != std::string::npos, true);
}

}  // namespace
}  // namespace gammalab::cli
