// Estimate (core/scaling/estimate.h).
#include "core/scaling/estimate.h"

#include <cmath>

namespace gammalab {

bool Estimate::bounded() const { return !at_bound && std::isfinite(lo) && std::isfinite(hi); }

}  // namespace gammalab
