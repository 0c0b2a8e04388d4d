#pragma once
// The run that narrows the interval most per FLOP: for a paired design (core/scaling/power.h) the moves that
// grow it — one more paired seed at a size, a new size above or below the ladder, a size between two — each
// valued by simulation as the verdict's interval would come out after it (its median hi/lo over simulated
// studies, analysed by the code `gammalab fit` runs) against the FLOPs it costs. Greedy moves towards a target
// width give the design a study would grow into, which is compared with the fixed design (the same seeds at every
// size) that reaches the same width.
//
// The target is a width, never the estimate: a rule that stops when the interval is narrow enough, whatever it
// says, keeps the interval's coverage (a rule that stops when it excludes 1× would not).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/power.h"

namespace gammalab {

enum class MoveKind {
  kSeed,     // one more paired seed at an existing size: `arms` runs of that size
  kLarger,   // a new size one ladder step above the largest, at the fewest seeds any size has
  kSmaller,  // a new size one ladder step below the smallest, likewise
  kBetween,  // a new size at the geometric middle of two neighbours, likewise
};

struct Move {
  MoveKind kind = MoveKind::kSeed;
  std::size_t at = 0;    // kSeed: the size; kBetween: the lower neighbour; otherwise unused
  double compute = 0.0;  // the compute of one run of the size the move trains, FLOPs
  int seeds = 0;         // paired seeds it trains (kSeed: one)
  int runs = 0;          // runs it adds: every arm of each seed
  double flops = 0.0;    // what it costs: runs × compute
};

struct MoveValue {
  Move move;
  double ratio_before = 0.0;  // median hi/lo of the headline's interval before the move
  double ratio_after = 0.0;   // and after it
  // ln(ratio_before) − ln(ratio_after) per FLOP: the interval's log-width the move removes for what it costs
  double gain_per_flop = 0.0;
};

// Which moves a design may make. A size below the ladder is off unless asked for: the simulation draws one
// multiplier at every size, so a cheap small size narrows the pooled interval as much as any, while a study's
// claim is about the sizes it reaches (the paper's multiplier falls with size): growing downwards would buy
// precision about the wrong scales.
struct MoveRules {
  int arms = 2;                // runs per paired seed: the baseline, the variant and any control beside them
  bool below_ladder = false;  // kSmaller moves
};

// The moves a design can make: a seed at each size, a size above (one ladder step: the geometric mean of the
// sizes' spacing), one between each two neighbours, and one below when the rules allow it.
std::vector<Move> candidate_moves(const PowerDesign& design, const MoveRules& rules);

// The design after `move`, its sizes still in order of compute.
PowerDesign apply_move(PowerDesign design, const Move& move);

// Every candidate move valued by simulation (design.studies studies each, the same seed for all), best first by
// gain per FLOP (ties: the cheaper, then the order of candidate_moves). Throws std::invalid_argument when the
// design has no interval to narrow (one seed at some size).
std::vector<MoveValue> rank_moves(const PowerDesign& design, const MoveRules& rules, int threads = 1);

// Why growing a design stopped (MovePlan::stopped; core/scaling/adaptive_step.h adds its own).
inline constexpr const char* kStopTarget = "target";  // the interval is as narrow as asked
inline constexpr const char* kStopBudget = "budget";  // no narrowing move fits in what is left of the budget
inline constexpr const char* kStopNoGain = "no gain";  // no move narrows it in simulation
inline constexpr const char* kStopMoves = "moves";    // the most moves allowed were made

struct MovePlan {
  std::vector<MoveValue> moves;  // in the order made
  double ratio = 0.0;            // median hi/lo after the last move
  double flops_added = 0.0;
  std::string stopped;  // one of the kStop* words above
};

// Greedy moves until the median interval is at most target_ratio (hi/lo) wide, no narrowing move fits in what is
// left of budget_flops (the best one that fits is made), no move narrows it, or max_moves were made.
// `made`, when given, hears of each move as it is made (a long path's progress).
MovePlan plan_to_width(PowerDesign design, const MoveRules& rules, double target_ratio, double budget_flops,
                       int max_moves, int threads = 1, const std::function<void(const MoveValue&)>& made = {});

struct FixedDesign {
  int seeds = 0;        // the same paired seeds at every size of the design
  double ratio = 0.0;   // its median hi/lo
  double flops = 0.0;   // its whole cost: arms × seeds × the sizes' compute
};

// The fewest seeds per size (at least the most the design has, at most max_seeds) whose median interval is at
// most target_ratio wide at the design's own sizes, found by doubling then bisection; nullopt when none is.
std::optional<FixedDesign> fixed_design_for_width(PowerDesign design, int arms, double target_ratio, int max_seeds);

// Every run of the design (arms × seeds at each size), FLOPs.
double design_flops(const PowerDesign& design, int arms);

}  // namespace gammalab
