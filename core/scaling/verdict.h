#pragma once
// The verdict: one headline per comparison, from the estimator the design supports, named, with the other
// printed beneath it as a check. The CLI (`gammalab fit`, `gammalab report`) prints these sentences and the
// coordinator stores them with the fit, so the dashboard shows them word for word.
// - The estimator: the local multiplier (core/scaling/comparison.h) where the baseline's sizes trace a curve and
//   seeds were resampled; else the law's multiplier (core/scaling/compute_multiplier.h); else none.
// - What it estimates: m_local pooled with precision weights over the sizes both arms ran; where its trend with
//   size is resolved, the multiplier changes with scale and the headline gives it at the largest size instead.
// - Not settled: when the law's interval and the local one disagree (one excludes 1x and the other does not, or
//   they do not overlap), the headline says so and why, and quotes both.
// - Few seeds: an interval resting on fewer than two degrees of freedom (one size with two seeds) is not
//   printed as if it were 95%: "too few seeds to bound".
#include <string>
#include <vector>

#include "core/scaling/fit_report.h"

namespace gammalab {

inline constexpr const char* kEstimatorLocal = "local multiplier";
inline constexpr const char* kEstimatorLaw = "law";

struct ComparisonVerdict {
  std::string variant, reference;
  std::string estimator;  // kEstimatorLocal, kEstimatorLaw, or empty: nothing could be estimated
  bool settled = true;    // false: the two estimators disagree (headline says why)
  std::string headline;
  std::vector<std::string> details;  // how it was got, per size, the trend, the check against the other estimator
};

// The local multiplier a headline quotes: m_local pooled, or at the largest size where its trend with size is
// resolved, with the degrees of freedom its interval rests on and where it holds. `gammalab plan`'s power and
// the calibration suite judge this very figure.
struct HeadlineMultiplier {
  Estimate estimate;
  double degrees_of_freedom = 0.0;
  std::string where;
  // Its interval is one the verdict prints: bounded, on two or more degrees of freedom.
  bool has_interval() const { return estimate.bounded() && degrees_of_freedom >= kFewestDegreesOfFreedom; }
};
HeadlineMultiplier headline_multiplier(const Comparison& c);

// One per comparison (the variants over the baseline, then over each control), in the report's order; then one for
// each law multiplier no comparison holds.
std::vector<ComparisonVerdict> comparison_verdicts(const FitReport& report);

}  // namespace gammalab
