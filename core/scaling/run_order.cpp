// The canonical order of runs (core/scaling/run_order.h).
#include "core/scaling/run_order.h"

#include <algorithm>
#include <tuple>

namespace gammalab {

void put_in_canonical_order(std::vector<RunPoint>& runs) {
  std::sort(runs.begin(), runs.end(), [](const RunPoint& a, const RunPoint& b) {
    return std::tie(a.group, a.params, a.tokens, a.compute, a.seed, a.loss, a.label) <
           std::tie(b.group, b.params, b.tokens, b.compute, b.seed, b.loss, b.label);
  });
}

}  // namespace gammalab
