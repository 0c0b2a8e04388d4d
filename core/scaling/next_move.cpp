// The run that narrows the interval most per FLOP (core/scaling/next_move.h).
#include "core/scaling/next_move.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/scaling/fit_parallel.h"

namespace gammalab {

namespace {

int fewest_seeds(const PowerDesign& d) {
  int fewest = seeds_at(d, 0);
  for (std::size_t i = 1; i < d.compute.size(); ++i) fewest = std::min(fewest, seeds_at(d, i));
  return fewest;
}

// One ladder step: the sizes' mean spacing in compute, geometric.
double ladder_step(const PowerDesign& d) {
  return std::pow(d.compute.back() / d.compute.front(), 1.0 / static_cast<double>(d.compute.size() - 1));
}

Move make_move(MoveKind kind, std::size_t at, double compute, int seeds, int arms) {
  return {kind, at, compute, seeds, seeds * arms, static_cast<double>(seeds * arms) * compute};
}

// The headline's median hi/lo over the simulated studies; throws where it has none (too few seeds).
double median_ratio(const PowerDesign& design) {
  const double ratio = simulate_power(design).median_ratio;
  if (!std::isfinite(ratio)) {
    throw std::invalid_argument("next move: the design has no interval to narrow (a size with one seed gives none)");
  }
  return ratio;
}

void check(const PowerDesign& design, int arms) {
  if (design.compute.size() < 2) throw std::invalid_argument("next move: a comparison needs 2 or more sizes");
  if (arms < 2) throw std::invalid_argument("next move: arms must be 2 or more (a baseline and a variant)");
  if (!std::is_sorted(design.compute.begin(), design.compute.end())) {
    throw std::invalid_argument("next move: the sizes must be in order of compute");
  }
}

}  // namespace

double design_flops(const PowerDesign& design, int arms) {
  double flops = 0.0;
  for (std::size_t i = 0; i < design.compute.size(); ++i) flops += arms * seeds_at(design, i) * design.compute[i];
  return flops;
}

std::vector<Move> candidate_moves(const PowerDesign& design, const MoveRules& rules) {
  const int arms = rules.arms;
  check(design, arms);
  const std::size_t n = design.compute.size();
  const int seeds = fewest_seeds(design);
  const double step = ladder_step(design);
  std::vector<Move> moves;
  for (std::size_t i = 0; i < n; ++i) {
    moves.push_back(make_move(MoveKind::kSeed, i, design.compute[i], 1, arms));
  }
  moves.push_back(make_move(MoveKind::kLarger, n, design.compute.back() * step, seeds, arms));
  if (rules.below_ladder) moves.push_back(make_move(MoveKind::kSmaller, 0, design.compute.front() / step, seeds, arms));
  for (std::size_t i = 0; i + 1 < n; ++i) {
    moves.push_back(
        make_move(MoveKind::kBetween, i, std::sqrt(design.compute[i] * design.compute[i + 1]), seeds, arms));
  }
  return moves;
}

PowerDesign apply_move(PowerDesign design, const Move& move) {
  std::vector<int> seeds(design.compute.size());
  for (std::size_t i = 0; i < seeds.size(); ++i) seeds[i] = seeds_at(design, i);
  if (move.kind == MoveKind::kSeed) {
    seeds.at(move.at) += 1;
  } else {
    const auto at = std::upper_bound(design.compute.begin(), design.compute.end(), move.compute);
    seeds.insert(seeds.begin() + (at - design.compute.begin()), move.seeds);
    design.compute.insert(at, move.compute);
  }
  design.seeds_per_size = std::move(seeds);
  return design;
}

std::vector<MoveValue> rank_moves(const PowerDesign& design, const MoveRules& rules, int threads) {
  const std::vector<Move> moves = candidate_moves(design, rules);
  const double before = median_ratio(design);
  std::vector<MoveValue> values(moves.size());
  parallel_for(static_cast<int>(moves.size()), threads, [&](int k) {
    const Move& move = moves[static_cast<std::size_t>(k)];
    const double after = median_ratio(apply_move(design, move));
    values[static_cast<std::size_t>(k)] = {move, before, after, (std::log(before) - std::log(after)) / move.flops};
  });
  std::stable_sort(values.begin(), values.end(), [](const MoveValue& a, const MoveValue& b) {
    if (a.gain_per_flop != b.gain_per_flop) return a.gain_per_flop > b.gain_per_flop;
    return a.move.flops < b.move.flops;
  });
  return values;
}

MovePlan plan_to_width(PowerDesign design, const MoveRules& rules, double target_ratio, double budget_flops,
                       int max_moves, int threads, const std::function<void(const MoveValue&)>& made) {
  if (!(target_ratio > 1.0)) throw std::invalid_argument("next move: the target width (hi/lo) must be above 1");
  check(design, rules.arms);
  MovePlan plan;
  plan.ratio = median_ratio(design);
  for (;;) {
    if (plan.ratio <= target_ratio) {
      plan.stopped = kStopTarget;
      return plan;
    }
    if (static_cast<int>(plan.moves.size()) >= max_moves) {
      plan.stopped = kStopMoves;
      return plan;
    }
    const std::vector<MoveValue> ranked = rank_moves(design, rules, threads);
    const auto narrows = [](const MoveValue& v) { return v.gain_per_flop > 0.0; };
    if (std::none_of(ranked.begin(), ranked.end(), narrows)) {
      plan.stopped = kStopNoGain;
      return plan;
    }
    // The best narrowing move the budget still allows: a cheaper one may fit where the best does not.
    const auto narrowing = std::find_if(ranked.begin(), ranked.end(), [&](const MoveValue& v) {
      return narrows(v) && plan.flops_added + v.move.flops <= budget_flops;
    });
    if (narrowing == ranked.end()) {
      plan.stopped = kStopBudget;
      return plan;
    }
    plan.moves.push_back(*narrowing);
    if (made) made(*narrowing);
    plan.flops_added += narrowing->move.flops;
    plan.ratio = narrowing->ratio_after;
    design = apply_move(std::move(design), narrowing->move);
  }
}

std::optional<FixedDesign> fixed_design_for_width(PowerDesign design, int arms, double target_ratio, int max_seeds) {
  check(design, arms);
  int seeds = 0;
  for (std::size_t i = 0; i < design.compute.size(); ++i) seeds = std::max(seeds, seeds_at(design, i));
  const auto found = fewest_seeds_reaching(design, std::max(seeds, 2), max_seeds, [&](const PowerEstimate& e) {
    return e.median_ratio <= target_ratio;  // NaN (no interval) never reaches
  });
  if (!found) return std::nullopt;
  design.seeds_per_size.clear();
  design.seeds = found->seeds;
  return FixedDesign{found->seeds, found->estimate.median_ratio, design_flops(design, arms)};
}

}  // namespace gammalab
