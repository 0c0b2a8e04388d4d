// What `gammalab plan FILE --next` prints (cli/next_move_view.h).
#include "cli/next_move_view.h"

#include <cmath>
#include <sstream>

#include "cli/number_text.h"
#include "cli/table.h"
#include "cli/terminal.h"

namespace gammalab::cli {

namespace {

const char* kind_name(MoveKind kind) {
  switch (kind) {
    case MoveKind::kSeed: return "seed";
    case MoveKind::kLarger: return "larger";
    case MoveKind::kSmaller: return "smaller";
    case MoveKind::kBetween: return "between";
  }
  return "seed";
}

// The interval's log-width a move removes, per PFLOP (10^15 FLOPs): a unit in which a move's worth reads.
double gain_per_pflop(const MoveValue& v) { return v.gain_per_flop * 1e15; }

std::string width(double ratio) { return fixed(ratio, 3) + "×"; }

std::string stop_text(const MovePlan& path, double target, double budget) {
  if (path.stopped == kStopTarget) return "reached the target of " + width(target) + " wide";
  if (path.stopped == kStopBudget) {
    return "stopped: the next move would pass the budget of " + scientific(budget) + " FLOPs, at " +
           width(path.ratio) + " wide";
  }
  if (path.stopped == kStopNoGain) return "stopped: no move narrows the interval further, at " + width(path.ratio);
  return "stopped after " + std::to_string(path.moves.size()) + " moves (--max-moves), at " + width(path.ratio) +
         " wide";
}

nlohmann::json move_json(const MoveValue& v) {
  return {{"kind", kind_name(v.move.kind)},   {"compute", v.move.compute},
          {"seeds", v.move.seeds},            {"runs", v.move.runs},
          {"flops", v.move.flops},            {"ratio_before", v.ratio_before},
          {"ratio_after", v.ratio_after},     {"gain_per_pflop", gain_per_pflop(v)},
          {"text", move_text(v.move)}};
}

}  // namespace

std::string move_text(const Move& move) {
  const std::string at = "at " + scientific(move.compute) + " FLOPs a run";
  const std::string seeds = std::to_string(move.seeds) + (move.seeds == 1 ? " seed" : " seeds");
  switch (move.kind) {
    case MoveKind::kSeed: return "one more paired seed " + at;
    case MoveKind::kLarger: return "a new size above the largest, " + at + ", " + seeds;
    case MoveKind::kSmaller: return "a new size below the smallest, " + at + ", " + seeds;
    case MoveKind::kBetween: return "a new size between two, " + at + ", " + seeds;
  }
  return at;
}

std::string render_next_move(const NextMoveReport& r) {
  std::ostringstream out;
  const PowerDesign& d = r.design;
  out << "\nnext move (each valued by " << d.studies << " simulated studies of the verdict's "
      << fixed(100 * d.confidence, 0) << "% interval, effect " << fixed(d.multiplier, 2) << "×, noise "
      << significant(d.noise, 3) << ", seed correlation " << significant(d.seed_correlation, 3) << "):\n";
  out << "  the design now: " << d.compute.size() << " sizes, " << r.arms << " arms, "
      << scientific(design_flops(d, r.arms)) << " FLOPs (the fit's compute); median interval "
      << (r.ranked.empty() ? std::string("-") : width(r.ranked.front().ratio_before)) << " wide (hi/lo)\n";
  if (r.ranked.empty() || !(r.ranked.front().gain_per_flop > 0.0)) {
    out << "  no move narrows the interval in simulation\n";
  } else {
    const MoveValue& best = r.ranked.front();
    out << "  best: " << move_text(best.move) << "; " << best.move.runs << " runs, " << scientific(best.move.flops)
        << " FLOPs in all: " << width(best.ratio_before) << " → " << width(best.ratio_after)
        << " wide, the most narrowing per FLOP\n";
  }
  std::string text = wrap_prose(out.str(), output_columns());
  using Align = TextTable::Align;
  TextTable table({{"move", Align::kLeft},
                   {"at FLOPs", Align::kRight},
                   {"runs", Align::kRight, 2},
                   {"cost", Align::kRight},
                   {"hi/lo after", Align::kRight},
                   {"ln-width/PFLOP", Align::kRight, 1}});
  for (const MoveValue& v : r.ranked) {
    table.add_row({kind_name(v.move.kind), scientific(v.move.compute), std::to_string(v.move.runs),
                   scientific(v.move.flops), width(v.ratio_after), significant(gain_per_pflop(v), 3)});
  }
  text += "\n" + table.render_fitted(output_columns());
  if (!r.target || !r.path) return text;
  std::ostringstream path;
  path << "\ntowards " << width(*r.target) << " wide (greedy, the best move each time"
       << (std::isfinite(r.budget) ? ", at most " + scientific(r.budget) + " FLOPs more" : std::string()) << "):\n";
  int k = 0;
  double spent = design_flops(d, r.arms);
  for (const MoveValue& v : r.path->moves) {
    spent += v.move.flops;
    path << "  " << ++k << ". " << move_text(v.move) << ": " << width(v.ratio_after) << " wide, "
         << scientific(spent) << " FLOPs in all\n";
  }
  path << "  " << stop_text(*r.path, *r.target, r.budget) << "\n";
  if (r.fixed) {
    path << "  the fixed design that reaches it: " << r.fixed->seeds << " paired seeds at every size, "
         << scientific(r.fixed->flops) << " FLOPs (" << width(r.fixed->ratio) << ")";
    if (r.path->stopped == kStopTarget) {
      path << "; these moves cost " << fixed(100.0 * spent / r.fixed->flops, 0) << "% of it";
    }
    path << "\n";
  } else {
    path << "  no fixed design of up to 64 seeds per size reaches it at these sizes\n";
  }
  path << "  (a width, not the estimate, decides when to stop: stopping so keeps the interval's coverage)\n";
  return text + wrap_prose(path.str(), output_columns());
}

std::string render_decision(const AdaptiveDecision& d, double target_width) {
  std::ostringstream out;
  out << "\nnext (towards every headline " << width(target_width) << " wide): ";
  if (d.stop.empty()) {
    out << move_text(d.move->move);
    if (d.move->move.kind == MoveKind::kSeed && d.params > 0.0) {
      out << " (N " << count_text(d.params) << (d.seed ? ", seed " + std::to_string(*d.seed) : std::string()) << ")";
    }
    out << "; " << d.move->move.runs << " runs, " << scientific(d.move->move.flops) << " FLOPs\n";
  } else if (d.stop == kStopTarget) {
    out << "stop, the target is reached\n";
  } else {
    out << "stop (" << d.stop << ")\n";
  }
  out << "  why: " << d.why << "\n";
  return wrap_prose(out.str(), output_columns());
}

nlohmann::json decision_json(const AdaptiveDecision& d, double target_width) {
  nlohmann::json j = {{"target_width", target_width}, {"why", d.why}, {"widest", d.widest}};
  j["stop"] = d.stop.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.stop);
  j["ratio"] = std::isfinite(d.ratio) ? nlohmann::json(d.ratio) : nlohmann::json(nullptr);
  j["move"] = d.move ? move_json(*d.move) : nlohmann::json(nullptr);
  if (d.params > 0.0) j["params"] = d.params;
  if (d.seed) j["seed"] = *d.seed;
  return j;
}

nlohmann::json next_move_json(const NextMoveReport& r) {
  nlohmann::json j = {{"arms", r.arms},
                      {"sizes", r.design.compute.size()},
                      {"design_flops", design_flops(r.design, r.arms)},
                      {"studies", r.design.studies},
                      {"effect", r.design.multiplier},
                      {"noise", r.design.noise},
                      {"seed_correlation", r.design.seed_correlation}};
  j["ratio"] = r.ranked.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.ranked.front().ratio_before);
  j["moves"] = nlohmann::json::array();
  for (const MoveValue& v : r.ranked) j["moves"].push_back(move_json(v));
  if (r.target && r.path) {
    nlohmann::json path = {{"target", *r.target}, {"stopped", r.path->stopped}, {"ratio", r.path->ratio},
                           {"flops_added", r.path->flops_added}, {"moves", nlohmann::json::array()}};
    if (std::isfinite(r.budget)) path["budget"] = r.budget;
    for (const MoveValue& v : r.path->moves) path["moves"].push_back(move_json(v));
    path["fixed"] = r.fixed ? nlohmann::json{{"seeds", r.fixed->seeds}, {"flops", r.fixed->flops},
                                            {"ratio", r.fixed->ratio}}
                            : nlohmann::json(nullptr);
    j["path"] = std::move(path);
  }
  return j;
}

}  // namespace gammalab::cli
