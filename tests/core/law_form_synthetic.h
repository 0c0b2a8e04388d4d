#pragma once
// Rows simulated from a law written as a file (core/scaling/law_form.h) with planted parameters: every
// combination of the axes' values is a configuration, run with `seeds` seeds, each with its own multiplicative
// log-normal noise (sigma in ln L).
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/scaling/law_form.h"
#include "core/scaling/law_rows.h"

namespace gammalab::test {

// L(N) = E + A / N^alpha with a grid of 8 starts, so that a test fits it in milliseconds.
inline constexpr const char* kQuickPowerLaw = R"(law: n
variables: [params]
loss: E + A / params^alpha
parameters:
  E: {bounds: [0, .inf], scale: log, starts: [1, 2]}
  A: {bounds: [0, .inf], scale: log, starts: [exp(3), exp(8)]}
  alpha: {bounds: [0, 2], starts: [0.1, 0.3]}
)";

// Every combination of the axes' values, the first axis slowest.
inline std::vector<std::vector<double>> combinations(const std::vector<std::vector<double>>& axes) {
  std::vector<std::vector<double>> combos{{}};
  for (const auto& axis : axes) {
    std::vector<std::vector<double>> next;
    for (const auto& prefix : combos) {
      for (double v : axis) {
        next.push_back(prefix);
        next.back().push_back(v);
      }
    }
    combos = std::move(next);
  }
  return combos;
}

inline LawRows simulate_law_rows(const LawForm& form, const std::map<std::string, double>& truth,
                                 const std::vector<std::vector<double>>& axes, int seeds, double sigma,
                                 std::uint64_t rng_seed) {
  std::vector<double> parameters;
  for (const auto& p : form.parameters) parameters.push_back(truth.at(p.name));
  const std::vector<std::vector<double>> combos = combinations(axes);
  std::mt19937_64 rng(rng_seed);
  std::normal_distribution<double> z(0.0, 1.0);
  LawRows rows;
  rows.variables = form.variables;
  for (const auto& values : combos) {
    const double loss = law_form_loss(form, parameters, values);
    for (int s = 0; s < seeds; ++s) {
      rows.rows.push_back({values, loss * std::exp(sigma * z(rng)), "", static_cast<std::uint64_t>(s), ""});
    }
  }
  return rows;
}

}  // namespace gammalab::test
