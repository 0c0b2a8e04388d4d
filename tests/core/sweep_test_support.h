#pragma once
// Shared helpers for the sweep tests: options pointing at the source tree's presets, and expansion that
// returns the diagnostics instead of throwing.
#include <string>
#include <vector>

#include "core/sweep/sweep.h"

namespace gammalab::testing {

inline SweepOptions source_tree_options() {
  SweepOptions options;
  options.preset_dir = std::string(GAMMALAB_SOURCE_DIR) + "/configs/models";
  return options;
}

inline Sweep expand(const std::string& yaml, SweepOptions options = source_tree_options()) {
  return expand_sweep(yaml, "test.yaml", options);
}

// The diagnostics of a sweep that must fail (empty if it unexpectedly expands).
inline std::vector<SweepDiagnostic> problems(const std::string& yaml, SweepOptions options = source_tree_options()) {
  try {
    expand_sweep(yaml, "test.yaml", options);
  } catch (const SweepError& e) {
    return e.diagnostics();
  }
  return {};
}

}  // namespace gammalab::testing
