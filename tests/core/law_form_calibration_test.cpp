// Calibration of the parameter intervals a law file's fit prints (core/scaling/law_form_fit.h), through the real
// fit path: studies simulated from a shipped form with planted parameters and seed noise, each fitted exactly as
// `gammalab fit --law-file` fits a CSV, and every parameter's 95% interval must cover its planted value 90–98%
// of the time. Rows of the table in docs/scaling-laws.md (`make calibrate`, GAMMALAB_CALIBRATION_DRAWS).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/law_form_fit.h"
#include "tests/core/law_form_synthetic.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {


LawForm shipped(const std::string& name) {
  return read_law_form((std::filesystem::path(GAMMALAB_SOURCE_DIR) / "configs" / "laws" / (name + ".yaml")).string());
}

struct Study {
  std::string law;
  std::string design;
  std::map<std::string, double> truth;
  std::vector<std::vector<double>> axes;  // every combination is a configuration
  int seeds = 3;
  double sigma = 0.004;                   // seed noise in ln L
};

// Per parameter: how many studies had an interval, and how many covered the planted value.
void calibrate(const Study& study) {
  quiet_solver_logging();
  const LawForm form = shipped(study.law);
  std::map<std::string, std::pair<int, int>> tally;  // name -> (bounded, covers)
  for (int draw = 0; draw < test::calibration_draws(); ++draw) {
    LawFormSettings settings;
    settings.bootstrap = 200;
    settings.seed = static_cast<std::uint64_t>(draw);
    settings.threads = 1;
    const LawFormReport report = fit_law_form(form, test::simulate_law_rows(form, study.truth, study.axes, study.seeds, study.sigma, 5000 + static_cast<std::uint64_t>(draw)), settings);
    for (const LawFormEstimate& e : report.groups.at(0).estimates) {
      auto& [bounded, covers] = tally[e.name];
      if (!std::isfinite(e.interval.lo) || !std::isfinite(e.interval.hi)) continue;
      ++bounded;
      const double truth = study.truth.at(e.name);
      covers += e.interval.lo <= truth && truth <= e.interval.hi ? 1 : 0;
    }
  }
  for (const auto& [name, counts] : tally) {
    const double coverage = counts.first > 0 ? static_cast<double>(counts.second) / counts.first : 0.0;
    std::printf("| law file %s, parameter %s, %s, %d seeds | %.3g | %d | %d | %.1f%% | – |\n", study.law.c_str(),
                name.c_str(), study.design.c_str(), study.seeds, study.truth.at(name), test::calibration_draws(), counts.first,
                100.0 * coverage);
    EXPECT_GE(counts.first, 0.95 * test::calibration_draws()) << name;
    EXPECT_GE(coverage, 0.90) << name;
    EXPECT_LE(coverage, 0.98) << name;
  }
}

TEST(ScalingCalibration, TheExpertsLawFilesParameterIntervalsCoverTheirTruth) {
  calibrate({"moe-experts", "5 sizes x 5 expert counts",
             {{"a", -0.08}, {"b", -0.05}, {"c", 0.002}, {"d", 2.5}},
             {test::log_space(1e8, 1e10, 5), {1.0, 4.0, 16.0, 64.0, 128.0}},
             3,
             0.004});
}

TEST(ScalingCalibration, TheAnnealingLawFilesParameterIntervalsCoverTheirTruthWithTwoSeeds) {
  calibrate({"lr-annealing", "8 forward areas x 4 annealing areas",
             {{"L0", 2.0}, {"A", 0.8}, {"alpha", 0.5}, {"C", 0.4}},
             {test::log_space(0.5, 50.0, 8), {0.0, 0.05, 0.1, 0.2}},
             2,
             0.004});
}

TEST(ScalingCalibration, TheLearningRateAndBatchLawFilesParameterIntervalsCoverTheirTruth) {
  calibrate({"lr-batch", "6 learning rates x 5 batch sizes",
             {{"L0", 3.1}, {"k_lr", 0.04}, {"k_batch", 0.02}, {"k_cross", 0.01}, {"lr_opt", 3e-3}, {"batch_opt", 5e5}},
             {test::log_space(3e-4, 3e-2, 6), test::log_space(6.4e4, 4e6, 5)},
             3,
             0.002});
}

}  // namespace
}  // namespace gammalab
