// Profiles of a law file's parameters (core/scaling/law_form_profile.h): closed around an identified
// parameter, holding the estimate; open both ways along a ridge (two parameters the data see only as a
// product), the identification failure a bound check cannot see; an unknown name refused.
#include "core/scaling/law_form_profile.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "core/scaling/fit.h"
#include "core/scaling/law_form_fit.h"
#include "tests/core/law_form_synthetic.h"
#include "tests/core/scaling_synthetic.h"

namespace gammalab {
namespace {

LawFormReport fit(const std::string& law, const std::vector<std::string>& profile) {
  quiet_solver_logging();
  const LawForm form = parse_law_form(law, "law.yaml");
  std::map<std::string, double> truth = {{"E", 1.8}, {"A", 400.0}, {"alpha", 0.3}, {"B", 1.0}};
  for (auto it = truth.begin(); it != truth.end();) {
    const bool used = std::any_of(form.parameters.begin(), form.parameters.end(),
                                  [&](const LawParameter& p) { return p.name == it->first; });
    it = used ? std::next(it) : truth.erase(it);
  }
  LawFormSettings settings;
  settings.bootstrap = 0;
  settings.profile = profile;
  return fit_law_form(form, test::simulate_law_rows(form, truth, {test::log_space(1e7, 1e10, 8)}, 3, 0.003, 31),
                      settings);
}

TEST(LawFormProfile, AnIdentifiedParameterHasAClosedRangeAroundItsEstimate) {
  const LawFormReport report = fit(test::kQuickPowerLaw, {"alpha", "E"});
  const auto& g = report.groups.at(0);
  ASSERT_EQ(g.profiles.size(), 2u);
  const LawFormProfile& alpha = g.profiles[0];
  EXPECT_EQ(alpha.parameter, "alpha");
  EXPECT_FALSE(alpha.open_lo);
  EXPECT_FALSE(alpha.open_hi);
  const double estimate = g.estimates[2].value;  // parameters in name order: A, E, alpha
  EXPECT_LT(alpha.lo, estimate);
  EXPECT_GT(alpha.hi, estimate);
  EXPECT_LT(alpha.lo, 0.3);
  EXPECT_GT(alpha.hi, 0.3);
  EXPECT_LT(alpha.hi - alpha.lo, 0.1) << "three seeds of 0.3% noise on 8 sizes pin the exponent";
  EXPECT_GT(alpha.tolerance, 0.0);
  EXPECT_EQ(g.profiles[1].parameter, "E");
}

TEST(LawFormProfile, ARidgeShowsAsARangeOpenBothWays) {
  const LawFormReport report = fit(R"(law: ridge
variables: [params]
loss: E + A * B / params^alpha
parameters:
  E: {bounds: [0, .inf], scale: log, starts: [1, 2]}
  A: {bounds: [0, .inf], scale: log, starts: [exp(3), exp(8)]}
  B: {bounds: [0, .inf], scale: log, starts: [1]}
  alpha: {bounds: [0, 2], starts: [0.1, 0.3]}
)",
                                   {"A"});
  const LawFormProfile& a = report.groups.at(0).profiles.at(0);
  EXPECT_TRUE(a.open_lo);
  EXPECT_TRUE(a.open_hi);
  EXPECT_NEAR(std::log(a.hi / a.lo), 2.0 * std::log(16.0), 1e-6) << "the whole grid: A·B is all the data see";
}

TEST(LawFormProfile, AnUnknownParameterIsRefusedWithTheLawsOwn) {
  try {
    fit("law: n\nvariables: [params]\nloss: E + A / params^alpha\nparameters:\n  E: {bounds: [0, 10]}\n"
        "  A: {bounds: [0, 1000]}\n  alpha: {bounds: [0, 2]}\n",
        {"beta"});
    ADD_FAILURE() << "profiled";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "--profile beta: not a parameter of law n (A, E, alpha)");
  }
}

}  // namespace
}  // namespace gammalab
