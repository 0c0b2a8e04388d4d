#pragma once
// Fitting a law written as a file (core/scaling/law_form.h) with the machinery of the built-in laws
// (core/scaling/fit.h, docs/scaling-laws.md):
// - one point per configuration (group and exact values of the variables): its mean loss over the seeds;
// - Huber loss on ln L, its delta 1.345 x the seeds' pure error of a configuration's mean where configurations
//   ran two or more seeds, else 1.345 x the residuals' robust s.d. after a grid at 1e-3, or as the file or the
//   caller gives it;
// - bounded L-BFGS from every point of the file's grid of starts, with exact derivatives by automatic
//   differentiation through the expression (ceres::Jet), bounds by a smooth map to an unconstrained search;
// - a bootstrap of run families (seeds drawn per family, every configuration of a family taking the same
//   seeds, and every group the same draw when the groups ran the same seeds: paired) with the small-sample
//   expansion of the seeds' degrees of freedom, or of clusters of the family's values without seeds; every
//   refit warm-started from the fit's best optima;
// - identification flags: a parameter at a bound, an interval reaching one, a spread wider than x4.
// Rows are put in a canonical order first, so the same rows in any order give the same bytes out.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/scaling/bootstrap.h"
#include "core/scaling/law_form.h"
#include "core/scaling/law_form_multiplier.h"
#include "core/scaling/law_form_profile.h"
#include "core/scaling/law_rows.h"

namespace gammalab {

struct LawFormSettings {
  double huber_delta = 1e-3;  // the floor of a noise-scaled delta, and the grid's delta without seeds
  bool delta_given = false;   // use huber_delta as it is (also when the law file sets one)
  double huber_k = 1.345;
  int max_iterations = 1000;
  int threads = 2;
  int warm_starts = 4;
  int bootstrap = 200;        // resamples; 0: no intervals
  std::uint64_t seed = 0;
  double confidence = 0.95;
  // Also fit each group without its rows at the largest value of the family's first variable (the model size),
  // and report how far that fit misses them: the question a law is asked, extrapolation (law_choice.h).
  bool holdout_largest = false;
  // Compute multipliers of every other group over this one, for a law with a frontier
  // (core/scaling/law_form_multiplier.h), at these budgets (empty: whole decades every group ran).
  std::string baseline = "baseline";
  std::vector<double> budgets;
  // Parameters to profile in each group (core/scaling/law_form_profile.h): the range the fit's objective allows.
  std::vector<std::string> profile;
};

struct LawFormEstimate {
  std::string name;
  double value = 0.0;
  Interval interval{};          // NaN ends when there is none
  bool at_bound = false;        // the estimate sits on a finite bound
  bool interval_at_bound = false;
  bool wide = false;            // the interval spans more than x4 (log parameters) or crosses zero and is wide
};

struct LawFormGroupFit {
  std::string group;
  int rows = 0;
  int configurations = 0;
  std::vector<double> parameters;  // in the form's order; NaN when no start gave a finite objective
  double objective = 0.0;
  double huber_delta = 0.0;
  std::string delta_source;        // kDeltaGiven, kDeltaSeeds or kDeltaResiduals (law.h)
  int starts = 0;
  int starts_converged = 0;
  bool converged = false;
  std::string termination;
  std::string resampling;          // what the bootstrap drew ("" without one)
  double degrees_of_freedom = 0.0; // of the seeds (families' seeds - 1, summed); 0 without seeds
  bool paired = false;             // every group drew the same seeds per family (law_form_fit.cpp: seeds_paired)
  int draws = 0;                   // resamples whose refit came out finite
  // Per resample, its refit's parameters (empty where it failed): index b of every group is the same draw of
  // seeds when paired, for predictions and multipliers.
  std::vector<std::vector<double>> parameter_draws;
  std::vector<LawFormEstimate> estimates;
  double residual_sum_of_squares = 0.0;  // of ln L at the configurations' means, for AICc (law_choice.h)
  // holdout_largest: the value held out, the runs it had, and their mean |relative error| predicted by the fit
  // without them (NaN when there are fewer than three values, or that fit failed).
  double holdout_value = 0.0;
  int holdout_runs = 0;
  double holdout_error = 0.0;
  std::vector<LawFormProfile> profiles;  // settings.profile, in its order
};

struct LawFormPrediction {
  std::string group;
  std::string label;
  std::vector<double> values;
  double loss = 0.0;        // as given (NaN when the row has none)
  double predicted = 0.0;   // NaN when the group has no fit or the law is outside its domain there
  Interval interval{};
};

struct LawFormReport {
  std::string law;
  std::string source;
  std::vector<std::string> variables;
  std::size_t family_variable = 0;      // the family's first variable (the one held out by holdout_largest)
  std::vector<std::string> parameters;
  std::string expression;
  double confidence = 0.95;
  int bootstrap = 0;
  std::uint64_t seed = 0;
  std::vector<LawFormGroupFit> groups;  // by group name
  std::vector<LawFormPrediction> predictions;
  LawFrontier frontier = LawFrontier::kNone;
  std::vector<LawFormMultiplier> multipliers;
};

// Throws std::invalid_argument when the rows cannot be fitted (a loss that is not positive, the law not a
// finite positive number at any start for a group: the message names the group and a row).
LawFormReport fit_law_form(const LawForm& form, const LawRows& rows, const LawFormSettings& settings,
                           const LawRows* predict = nullptr);

nlohmann::json to_json(const LawFormReport& report);

}  // namespace gammalab
