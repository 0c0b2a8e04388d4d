#pragma once
// The fit options of the simulation tests that judge the law-free comparison (calibration, surfaces, the
// adaptive stage): `gammalab fit`'s path with 200 resamples, law n on a small start grid (the comparison reads no
// law, and a small grid keeps the law fits each study also makes cheap), one thread (the suites run side by side).
#include <cstdint>

#include "core/scaling/fit_options.h"

namespace gammalab::test {

inline FitOptions law_free_fit(std::uint64_t seed, LawKind law = LawKind::n) {
  FitOptions options;
  options.law = law;
  options.bootstrap = 200;
  options.seed = seed;
  options.settings.grid_exponent = {0.1, 0.5};
  options.settings.grid_e = {-0.5, 0.5};
  options.settings.grid_coef = {0.0, 5.0};
  options.settings.threads = 1;
  return options;
}

}  // namespace gammalab::test
