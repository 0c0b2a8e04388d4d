// Fuzz target: a sweep file as `gammalab validate`, `plan` and the coordinator's SubmitSweep read it, from the
// YAML text through expansion of both stages and the plan. Any input must end in a SweepError (the file's
// problems, each naming its field) or a sweep; a crash, a hang, an exception of another type or memory
// proportional to a number in the file (seeds, axis sizes, model dimensions) is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/sweep/plan.h"
#include "core/sweep/sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  gammalab::SweepOptions options;
  // A small job budget keeps each input cheap; the limit's check is the same code at any value.
  options.max_jobs = 16;
  try {
    const gammalab::SweepStages stages = gammalab::expand_stages(text, "fuzz.yaml", options);
    (void)gammalab::plan_sweep(stages.main);
    if (stages.tune) (void)gammalab::plan_sweep(*stages.tune);
  } catch (const gammalab::SweepError&) {
  }
  return 0;
}
