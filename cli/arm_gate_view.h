#pragma once
// What `gammalab fit --gate X` prints: each arm's law-free multiplier over the reference with its interval, and
// whether the gate promotes it to the next stage or drops it, with the evidence (core/scaling/arm_gate.h).
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scaling/arm_gate.h"

namespace gammalab::cli {

std::string render_gate(const std::vector<GateDecision>& decisions, const GateRules& rules, int resamples);
nlohmann::json gate_json(const std::vector<GateDecision>& decisions, const GateRules& rules, int resamples);

}  // namespace gammalab::cli
