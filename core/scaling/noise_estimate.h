#pragma once
// The noise of a finished sweep, in the terms a power simulation (core/scaling/power.h) asks for, so that the
// next sweep is planned from measured noise rather than a default.
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab {

struct NoiseEstimate {
  double noise = 0.0;             // pooled s.d. of a run's loss around its configuration's mean, every group
  double seed_correlation = 0.0;  // 1 - var(paired gap) / (2 noise²), clamped to [0, 0.95]
  double loss_slope = 0.0;        // minus the least-squares slope of the baseline's size means on ln C
  int degrees_of_freedom = 0;     // of the noise: runs - configurations
  int pairs = 0;                  // pairs (same size, tokens and seed) behind the correlation
  // Each replicated run's deviation from its configuration's mean, scaled so that they have s.d. 1 (divided by
  // the noise and by sqrt((k-1)/k) for a configuration of k runs, which makes them unbiased): the noise's shape,
  // heavy tails and two modes included, for PowerDesign::noise_shape. Sorted: the same runs, the same shape.
  std::vector<double> shape;
};

// nullopt without replicated configurations (no noise to measure) or without two baseline sizes. Without
// pairs the correlation is 0: nothing says pairing would help.
std::optional<NoiseEstimate> measure_noise(const std::vector<RunPoint>& runs, const std::string& baseline);

}  // namespace gammalab
