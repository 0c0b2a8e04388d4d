// One step of a study that plans itself (core/scaling/adaptive_step.h).
#include "core/scaling/adaptive_step.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/number_format.h"
#include "core/scaling/noise_estimate.h"
#include "core/scaling/run_order.h"
#include "core/scaling/verdict.h"

namespace gammalab {

namespace {

struct Widest {
  double ratio = 0.0;
  std::string name;
};

// The widest headline interval over the comparisons; +inf where one prints none.
Widest widest_headline(const FitReport& report) {
  Widest w;
  for (const Comparison& c : report.comparisons) {
    const HeadlineMultiplier h = headline_multiplier(c);
    const double ratio = h.has_interval() ? h.estimate.hi / h.estimate.lo : std::numeric_limits<double>::infinity();
    if (w.name.empty() || ratio > w.ratio) w = {ratio, c.variant + " over " + c.baseline};
  }
  if (w.name.empty()) w.ratio = std::numeric_limits<double>::infinity();
  return w;
}


// The baseline's runs by size (N): the size's compute (the most of its runs'), its token budgets and its seeds.
struct BaselineSize {
  double compute = 0.0;
  std::set<double> tokens;
  std::set<std::uint64_t> seeds;
  int unseeded = 0;
};

std::map<double, BaselineSize> baseline_sizes(const std::vector<RunPoint>& runs, const std::string& baseline) {
  std::map<double, BaselineSize> sizes;
  for (const RunPoint& run : runs) {
    if (run.group != baseline) continue;
    BaselineSize& size = sizes[run.params];
    size.compute = std::max(size.compute, run_compute(run));
    size.tokens.insert(run.tokens);
    if (run.seed) {
      size.seeds.insert(*run.seed);
    } else {
      ++size.unseeded;
    }
  }
  return sizes;
}

// A seed move named as the runs name it: the baseline's N of the size whose compute the move trains, and the seed
// after the largest its runs have (the baseline's seeds number the pairs: every arm runs the same ones).
void name_seed_move(const std::vector<RunPoint>& runs, const std::string& baseline, double compute,
                    AdaptiveDecision& decision) {
  for (const auto& [n, size] : baseline_sizes(runs, baseline)) {
    if (size.compute != compute) continue;
    decision.params = n;
    if (!size.seeds.empty()) decision.seed = *size.seeds.rbegin() + 1;
    return;
  }
}

}  // namespace

PowerDesign observed_design(const std::vector<RunPoint>& runs, const std::string& baseline) {
  const std::map<double, BaselineSize> sizes = baseline_sizes(runs, baseline);
  if (sizes.size() < 2) throw std::invalid_argument("adaptive: the baseline '" + baseline + "' has fewer than 2 sizes");
  std::vector<std::pair<double, int>> by_compute;
  for (const auto& [n, size] : sizes) {
    if (size.tokens.size() > 1) {
      throw std::invalid_argument("adaptive: the baseline's size N = " + significant(n, 4) + " has " +
                                  std::to_string(size.tokens.size()) +
                                  " token budgets; the moves model a ladder (one budget per size)");
    }
    by_compute.emplace_back(size.compute, static_cast<int>(size.seeds.size()) + size.unseeded);
  }
  std::sort(by_compute.begin(), by_compute.end());
  PowerDesign design;
  design.seeds = by_compute.front().second;
  for (const auto& [compute, seeds] : by_compute) {
    design.compute.push_back(compute);
    design.seeds_per_size.push_back(seeds);
    design.seeds = std::min(design.seeds, seeds);
  }
  return design;
}

AdaptiveDecision decide_next(const FitReport& report, const std::vector<RunPoint>& given, PowerDesign planning,
                             const MoveRules& rules, const AdaptiveTarget& target, double flops_spent, int batches,
                             int threads) {
  // The noise's sums visit runs in order: the canonical one makes the same runs give the same decision, bit for bit.
  std::vector<RunPoint> runs = given;
  put_in_canonical_order(runs);
  AdaptiveDecision decision;
  const Widest widest = widest_headline(report);
  decision.ratio = widest.ratio;
  decision.widest = widest.name;
  std::ostringstream why;
  if (std::isfinite(widest.ratio)) {
    why << "the widest interval (" << widest.name << ") is " << fixed(widest.ratio, 3) << "× wide against a target of "
        << fixed(target.ratio, 3) << "×";
  } else {
    why << (widest.name.empty() ? std::string("no comparison") : widest.name) << " has no interval yet (target "
        << fixed(target.ratio, 3) << "×)";
  }
  if (widest.ratio <= target.ratio) {
    decision.stop = kStopTarget;
    decision.why = why.str() + ": reached";
    return decision;
  }
  if (batches >= target.max_batches) {
    decision.stop = kStopBatches;
    decision.why = why.str() + "; " + std::to_string(batches) + " batches made, the most allowed";
    return decision;
  }
  const PowerDesign observed = observed_design(runs, report.baseline);
  std::vector<MoveValue> ranked;
  if (observed.seeds < 2) {
    // A size with one seed gives no interval and no noise to plan with: its second seed comes first, at the
    // cheapest such size.
    for (std::size_t i = 0; i < observed.compute.size() && ranked.empty(); ++i) {
      if (seeds_at(observed, i) < 2) {
        const Move move{MoveKind::kSeed, i, observed.compute[i], 1, rules.arms, rules.arms * observed.compute[i]};
        ranked.push_back({move, widest.ratio, widest.ratio, 0.0});
      }
    }
    why << "; a size with one seed has no interval: a second seed there first";
    if (flops_spent + ranked.front().move.flops > target.budget_flops) {
      decision.stop = kStopBudget;
      decision.move = ranked.front();
      decision.why = why.str() + ", but its " + significant(ranked.front().move.flops, 3) +
                     " FLOPs would pass the budget";
      return decision;
    }
  } else {
    const std::optional<NoiseEstimate> noise = measure_noise(runs, report.baseline);
    if (!noise || !(noise->noise > 0.0) || !(noise->loss_slope > 0.0)) {
      decision.stop = kStopNoNoise;
      const bool no_noise = !noise || !(noise->noise > 0.0);
      decision.why = why.str() + "; the runs give " +
                     (no_noise ? "no seed noise to plan with" : "no falling baseline to plan on");
      return decision;
    }
    planning.compute = observed.compute;
    planning.seeds = observed.seeds;
    planning.seeds_per_size = observed.seeds_per_size;
    planning.noise = noise->noise;
    planning.seed_correlation = noise->seed_correlation;
    planning.loss_slope = noise->loss_slope;
    planning.noise_shape.clear();
    ranked = rank_moves(planning, rules, threads);
    const auto narrows = [](const MoveValue& v) { return v.gain_per_flop > 0.0; };
    ranked.erase(std::remove_if(ranked.begin(), ranked.end(), [&](const MoveValue& v) { return !narrows(v); }),
                 ranked.end());
    if (ranked.empty()) {
      decision.stop = kStopNoGain;
      decision.why = why.str() + "; no move narrows it in simulation";
      return decision;
    }
    // The best narrowing move the budget still allows: a cheaper one may fit where the best does not.
    const auto fits = std::find_if(ranked.begin(), ranked.end(), [&](const MoveValue& v) {
      return flops_spent + v.move.flops <= target.budget_flops;
    });
    if (fits == ranked.end()) {
      decision.stop = kStopBudget;
      decision.move = ranked.front();
      decision.why = why.str() + "; no move that narrows it fits in the budget (the best costs " +
                     significant(ranked.front().move.flops, 3) + " FLOPs, " +
                     significant(target.budget_flops - flops_spent, 3) + " are left)";
      return decision;
    }
    const bool best_fits = fits == ranked.begin();
    ranked.erase(ranked.begin(), fits);
    why << "; simulated at the runs' noise " << significant(planning.noise, 3) << " (seed correlation "
        << fixed(planning.seed_correlation, 2) << "), the best move " << (best_fits ? "" : "in budget ")
        << "takes the median interval from " << fixed(ranked.front().ratio_before, 3) << "× to "
        << fixed(ranked.front().ratio_after, 3) << "×";
  }
  decision.move = ranked.front();
  if (decision.move->move.kind == MoveKind::kSeed) {
    name_seed_move(runs, report.baseline, decision.move->move.compute, decision);
  }
  decision.why = why.str();
  return decision;
}

}  // namespace gammalab
