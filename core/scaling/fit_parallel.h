#pragma once
// A deterministic parallel loop for fits: work items are claimed by index and every result is written to its
// own slot, so the outcome never depends on the thread count or the scheduling.
#include <functional>

namespace gammalab {

// Runs body(0..n-1) on up to `threads` threads (<= 1: inline). Rethrows the first exception a body threw.
void parallel_for(int n, int threads, const std::function<void(int)>& body);

}  // namespace gammalab
