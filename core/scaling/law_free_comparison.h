#pragma once
// The law-free comparisons alone (core/scaling/comparison.h): every other group over a reference, with the
// paired bootstrap intervals `gammalab fit` reports, and no law fitted. For what needs the comparison and no law:
// a cheap stage of two sizes, which no law with three parameters can be fitted to (core/scaling/arm_gate.h), and
// simulated studies (core/scaling/power.h).
#include <cstdint>
#include <string>
#include <vector>

#include "core/scaling/comparison.h"

namespace gammalab {

// One Comparison per group other than `reference` (in name order), each over `reference`; resample b draws
// stream resample_seed(seed, b) for every group alike, so pairs share their draws (where every run has its
// partner; otherwise each cell draws on its own, as `gammalab fit` does). The runs are analysed in the
// canonical order (core/scaling/run_order.h): the same runs in any order give the same bytes.
std::vector<Comparison> compare_without_law(std::vector<RunPoint> runs, const std::string& reference, int resamples,
                                            std::uint64_t seed, double confidence);

}  // namespace gammalab
