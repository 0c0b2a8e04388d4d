#pragma once
// The one order runs are analysed in. A fit's every step (groups, replicate cells, pairs, bootstrap blocks, the
// sums of the law's objective) visits runs in the order it is given them, and floating-point sums and the
// order groups are listed in depend on it; putting the runs in this order on entry makes the same set of
// runs give the same bytes out, whatever order a CSV file or the store listed them in.
#include <vector>

#include "core/scaling/law.h"

namespace gammalab {

// Sorts by group, N, D, C, seed (runs without one first), loss, then label: a total order on what a fit reads.
void put_in_canonical_order(std::vector<RunPoint>& runs);

}  // namespace gammalab
