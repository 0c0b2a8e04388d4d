// `gammalab fit --law-file`'s output as printed (cli/law_form_view.h): the law and its source, per group the
// parameters with intervals and flags and how they were drawn, then the predictions; within 80 columns.
#include "cli/law_form_view.h"

#include <cmath>

#include <gtest/gtest.h>

namespace gammalab::cli {
namespace {

LawFormReport report() {
  LawFormReport r;
  r.law = "moe_experts";
  r.source = "Clark et al. (2022), eq. 2";
  r.variables = {"params", "experts"};
  r.parameters = {"a", "d"};
  r.expression = "exp(d + a * log(params) + b * log(experts))";
  r.bootstrap = 200;
  LawFormGroupFit g;
  g.group = "baseline";
  g.rows = 75;
  g.configurations = 25;
  g.huber_delta = 0.00538;
  g.delta_source = "seeds' scatter";
  g.starts = 81;
  g.starts_converged = 80;
  g.converged = true;
  g.resampling = "seeds within run families (params)";
  g.degrees_of_freedom = 10;
  g.draws = 199;
  LawFormEstimate a{"a", -0.0801234, {-0.0832, -0.0770}, false, false, false};
  LawFormEstimate d{"d", 2.5, {1e-9, 40.0}, false, true, true};
  g.estimates = {a, d};
  r.groups = {g};
  LawFormPrediction p;
  p.group = "baseline";
  p.label = "big";
  p.values = {1e10, 64};
  p.loss = std::nan("");
  p.predicted = 2.345;
  p.interval = {2.3, 2.39};
  r.predictions = {p};
  return r;
}

TEST(LawFormView, TheLawThenEachGroupsParametersThenThePredictions) {
  EXPECT_EQ(law_form_text(report(), 0),
            "law moe_experts (Clark et al. (2022), eq. 2)\n"
            "  L = exp(d + a * log(params) + b * log(experts))\n"
            "group baseline: 75 runs in 25 configurations; Huber delta 0.00538 (seeds' scatter); 80 of 81 starts "
            "converged\n"
            "  parameter     value       95% interval  flags\n"
            "  ---------  --------  -----------------  -------------------------------------------\n"
            "  a          -0.08012  [-0.0832, -0.077]\n"
            "  d               2.5        [1e-09, 40]  interval reaches a bound; poorly identified\n"
            "  (199 of 200 resamples of seeds within run families (params), widened for the seeds' 10 df)\n"
            "predictions\n"
            "  group     label  params  experts  predicted  95% interval  loss\n"
            "  --------  -----  ------  -------  ---------  ------------  ----\n"
            "  baseline  big     1e+10       64      2.345   [2.3, 2.39]     -\n");
}

TEST(LawFormView, ANarrowTerminalKeepsEveryLineWithinIt) {
  const std::string text = law_form_text(report(), 80);
  for (std::size_t at = 0, end; at < text.size(); at = end + 1) {
    end = text.find('\n', at);
    EXPECT_LE(end - at, 80u) << text.substr(at, end - at);
  }
  EXPECT_NE(text.find("-0.08012"), std::string::npos);
}

}  // namespace
}  // namespace gammalab::cli
