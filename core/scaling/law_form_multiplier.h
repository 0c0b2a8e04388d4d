#pragma once
// Compute multipliers between groups for a law written as a file (core/scaling/law_form.h), read from each
// group's fitted law as the built-in laws' are (core/scaling/compute_multiplier.h):
//   m(C) = C_b(L*_v(C)) / C,  the compute the baseline needs to reach the loss the variant reaches with C,
// where L*(C) is the law's compute frontier:
// - variables params and tokens (and compute, if named: 6·N·D): L*(C) = min over N of L(N, C / 6N), the
//   compute-optimal envelope, searched over N within a factor of 100 of the sizes the group ran (a minimum on
//   that edge is no frontier: NaN);
// - the variable compute alone: L*(C) = L(C);
// - the variable params alone: the parameter frontier, m(N) = N_b(L_v(N)) / N, read at model sizes.
// Other laws (another variable, such as unique_tokens) have no frontier here. The interval is the percentile
// interval of m over the groups' bootstrap refits, resample b of one group with resample b of the other: the
// same draw of seeds where the groups ran the same seeds (paired), independent draws otherwise; widened on ln m
// for the smaller of the two groups' seed df.
#include <string>
#include <vector>

#include "core/scaling/bootstrap.h"
#include "core/scaling/law_form.h"
#include "core/scaling/law_rows.h"

namespace gammalab {

struct LawFormGroupFit;

enum class LawFrontier { kNone, kComputeOptimal, kCompute, kParams };
LawFrontier law_frontier(const LawForm& form);

struct LawFormMultiplier {
  std::string group;
  std::string baseline;
  double budget = 0.0;  // FLOPs (a model size for the parameter frontier)
  double value = 0.0;   // +inf where the baseline never reaches the variant's loss; NaN without a frontier
  Interval interval{};
  int draws = 0;        // resample pairs with a finite or infinite m
};

// The frontier loss at `budget` under parameters `theta` (of form.parameters); `sizes` bound the search over N.
double law_form_frontier_loss(const LawForm& form, const std::vector<double>& theta, double budget, double size_lo,
                              double size_hi);

// Every group but the baseline against it, at `budgets` (empty: whole decades inside the budgets every group
// ran). Empty when the form has no frontier or the baseline is not among the groups.
std::vector<LawFormMultiplier> law_form_multipliers(const LawForm& form, const LawRows& rows,
                                                    const std::vector<LawFormGroupFit>& groups,
                                                    const std::string& baseline, std::vector<double> budgets,
                                                    double confidence);

}  // namespace gammalab
