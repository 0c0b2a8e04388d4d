#pragma once
// The token multiplier at a fixed model size, where a size ran several token budgets (a WSD run's cooldown
// branches, docs/branches.md, or runs of one size at several token counts):
//   m_D = D_b(L_v(D)) / D
// the tokens the baseline needs at that size to reach the variant's mean loss at D, over D. It is read along
// the size's own budgets, with the monotone cubic of local_multiplier.h in (ln D, L): no other size enters, so
// it asks a narrower question than m_local (how many fewer tokens at this N, not how much less compute over
// sizes), and needs no assumption on how loss moves between sizes. Past the baseline's largest budget the curve
// is continued along its tangent (a convex curve then reads m_D slightly low), and the budget is marked outside.
// Per size, ln m_D is the mean over the size's budgets; over sizes, the plain mean of the sizes' values over
// every size with two or more budgets (fixed before the outcome). The bootstrap resamples run families
// (comparison.h), so a run's branches move together and share its noise.
#include <cstddef>
#include <vector>

#include "core/scaling/comparison.h"

namespace gammalab {

struct TokenReading {
  double log_multiplier = 0.0;  // mean over the size's budgets of ln m_D; NaN where the curve is flat
  int budgets = 0;              // the size's budgets: 0 or 1 means no reading
  int budgets_inside = 0;       // of them, the ones whose loss the baseline's budgets bracket
};

// Per run family of the plan (one baseline size: ComparisonPlan::families), its reading from the blocks' mean
// losses; sizes with one budget read NaN and 0 budgets.
std::vector<TokenReading> token_readings(const ComparisonPlan& plan, const std::vector<double>& base_means,
                                         const std::vector<double>& variant_means);

// The plain mean of ln m_D over the sizes with two or more budgets; NaN if there are none, or if one of them
// has no value (a resample where a curve went flat).
double pooled_token_log(const std::vector<TokenReading>& readings);

}  // namespace gammalab
