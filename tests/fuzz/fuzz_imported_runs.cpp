// Fuzz target: the files `gammalab import` reads (core/scaling/imported_runs.h), a CSV of final losses or JSON
// lines of runs and their metric lines. The first byte picks the format. A file imports or is refused with
// std::invalid_argument; nothing else. Every run it gives passes the coordinator's own check again unchanged, so
// what the CLI sends is what the coordinator stores.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/scaling/imported_runs.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool csv = data[0] % 2 == 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::vector<gammalab::ImportedRun> runs;
  try {
    runs = csv ? gammalab::imported_runs_from_csv(text, "fuzz.csv") : gammalab::imported_runs_from_jsonl(text, "fuzz.jsonl");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  for (gammalab::ImportedRun& run : runs) {
    const std::vector<gammalab::MetricPoint> before = run.points;
    try {
      gammalab::check_imported_run(run);
    } catch (const std::invalid_argument&) {
      std::abort();  // the parser gave a run the coordinator would refuse
    }
    if (run.points != before) std::abort();  // already in the coordinator's order
  }
  return 0;
}
