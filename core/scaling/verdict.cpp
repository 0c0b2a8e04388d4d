// The verdict's sentences (core/scaling/verdict.h).
#include "core/scaling/verdict.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <utility>

#include "core/number_format.h"

namespace gammalab {

namespace {

// Why the seeds were not resampled: no bootstrap was asked for, or there are no seeds to resample.
std::string no_seed_resampling(const FitReport& r) {
  return r.bootstrap_requested == 0 ? "no bootstrap asked for (--bootstrap 0)" : "one run per configuration: add seeds";
}

constexpr int kDigits = 5;

std::string percent_text(double confidence) { return significant(100.0 * confidence, kDigits) + "%"; }

// A multiplier in the direction a sentence says it: above 1 the variant needs less compute.
struct Direction {
  bool better = true;
  double factor = 1.0;
  double lo = 0.0, hi = 0.0;  // the interval turned the same way
};

Direction direction(const Estimate& e) {
  const bool better = !(e.value < 1.0);
  return {better, better ? e.value : 1.0 / e.value, better ? e.lo : 1.0 / e.hi, better ? e.hi : 1.0 / e.lo};
}

std::string claim(const std::string& variant, const std::string& reference, const Estimate& e) {
  const Direction d = direction(e);
  return d.better ? variant + " reaches " + reference + "'s loss with " + fixed(d.factor, 2) + "× less compute"
                  : variant + " needs " + fixed(d.factor, 2) + "× more compute than " + reference;
}

// "[1.12, 1.71]", or why there is none: no bootstrap, too few seeds, or resamples that did not bound it.
std::string interval_text(const Estimate& e, bool resampled, double degrees_of_freedom) {
  if (!resampled) return "(no interval: add seeds)";
  if (degrees_of_freedom < kFewestDegreesOfFreedom) return "(too few seeds to bound)";
  if (!e.bounded()) return "(unbounded: add sizes or seeds)";
  const Direction d = direction(e);
  return "[" + fixed(d.lo, 2) + ", " + fixed(d.hi, 2) + "]";
}

bool has_interval(const Estimate& e, bool resampled, double degrees_of_freedom) {
  return resampled && degrees_of_freedom >= kFewestDegreesOfFreedom && e.bounded();
}

bool includes_one(const Estimate& e) { return e.lo <= 1.0 && e.hi >= 1.0; }

template <typename T>
const T* find_named(const std::vector<T>& list, std::string T::*field, const std::string& name) {
  for (const auto& item : list) {
    if (item.*field == name) return &item;
  }
  return nullptr;
}

// "5 sizes × 3 seeds" (or "1–2 seeds" when some configuration lost a run) over a group's sizes.
std::string design_text(const GroupFit& g) {
  int lo = 0, hi = 0;
  for (const auto& s : g.sizes) {
    lo = lo == 0 ? s.runs : std::min(lo, s.runs);
    hi = std::max(hi, s.runs);
  }
  const std::string seeds = lo == hi ? std::to_string(hi) : std::to_string(lo) + "–" + std::to_string(hi);
  return std::to_string(g.model_sizes) + " sizes × " + seeds + (hi == 1 ? " seed" : " seeds");
}

// The law's figure a verdict quotes: the shared-exponent constant (law c), which holds across the common compute
// range, else the middle budget that does not extrapolate; with where it holds.
std::optional<std::pair<Estimate, std::string>> law_figure(const Multiplier& m) {
  const std::string range = "C " + significant(m.compute_lo, kDigits) + " to " + significant(m.compute_hi, kDigits);
  if (m.constant && std::isfinite(m.constant->value)) return std::pair{*m.constant, range};
  std::vector<const BudgetMultiplier*> inside;
  for (const auto& b : m.at_budgets) {
    if (!b.extrapolated && std::isfinite(b.multiplier.value)) inside.push_back(&b);
  }
  if (inside.empty()) return std::nullopt;
  const BudgetMultiplier* mid = inside[inside.size() / 2];
  return std::pair{mid->multiplier, "at C=" + significant(mid->compute, kDigits)};
}

bool local_available(const FitReport& r, const Comparison& c) {
  return c.ladder && c.sizes_pooled > 0 && std::isfinite(c.local.value) && seeds_resampled(r);
}

std::string seeds_text(const Comparison& c) {
  return std::to_string(c.fewest_seeds) + (c.fewest_seeds == 1 ? " seed" : " seeds") + " per size";
}

// How the local figure was got, in one line.
std::string local_method(const FitReport& r, const Comparison& c) {
  std::ostringstream out;
  const int outside = c.sizes_pooled > 0 ? static_cast<int>(std::count_if(c.sizes.begin(), c.sizes.end(), [](const SizeComparison& s) {
                        return !s.inside && std::isfinite(s.local.value);
                      }))
                                         : 0;
  out << "local multiplier, no law: m_local pooled with precision weights over " << c.sizes_pooled << " size"
      << (c.sizes_pooled == 1 ? "" : "s") << " both ran";
  if (outside > 0) out << " (" << outside << " outside " << c.baseline << "'s range, read along its tangent)";
  out << "; " << percent_text(r.confidence)
      << (c.paired ? " paired bootstrap over seeds" : " bootstrap over each group's seeds, pairs incomplete") << ", "
      << r.bootstrap_requested << " resamples, " << seeds_text(c) << ", t with " << significant(c.degrees_of_freedom, 2) << " df";
  if (c.fewest_seeds < 3) out << " (no interval per size: each rests on " << c.fewest_seeds - 1 << " df)";
  return out.str();
}

// Per size (a ladder: one block per size), the unweighted mean beside the weighted one, and the trend.
std::string local_sizes(const Comparison& c, bool resampled) {
  std::ostringstream out;
  const bool one_block_per_size = static_cast<int>(c.sizes.size()) == c.sizes_pooled;
  if (one_block_per_size && c.sizes_pooled > 1) {
    out << "per size:";
    for (const auto& s : c.sizes) {
      if (!std::isfinite(s.local.value)) continue;
      out << " " << fixed(s.local.value, 2) << "× at N " << count_text(s.params) << (s.inside ? "" : " (outside)")
          << ";";
    }
    out << " ";
  }
  out << "unweighted geometric mean " << fixed(c.local_unweighted.value, 2) << "×";
  if (std::isfinite(c.trend.value)) {
    out << "; trend of ln m with ln N " << significant(c.trend.value, 3);
    if (has_interval(c.trend, resampled, c.degrees_of_freedom - 1)) {
      out << " [" << significant(c.trend.lo, 3) << ", " << significant(c.trend.hi, 3) << "]: "
          << (c.trend_resolved() ? "the multiplier changes with scale" : "no clear change with scale");
    } else {
      out << " (too few seeds to bound)";
    }
  }
  if (c.jackknife) {
    // In the headline's own direction, as its interval: "needs 1.25× more" gives the range as "more" too.
    const bool better = !(c.local.value < 1.0);
    const double lo = better ? c.jackknife->lo : 1.0 / c.jackknife->hi;
    const double hi = better ? c.jackknife->hi : 1.0 / c.jackknife->lo;
    out << "; " << fixed(lo, 2) << "–" << fixed(hi, 2) << " leaving one size out";
  }
  return out.str();
}

// The law's line beneath a comparison: its figure, interval, design, range and profile.
std::string law_line(const FitReport& r, const Multiplier& m, const Estimate& e, const std::string& where) {
  std::ostringstream out;
  const bool resampled = r.bootstrap_used > 0;
  out << claim(m.variant, m.baseline, e) << " "
      << (resampled ? (e.bounded() ? interval_text(e, true, 2) : "(unbounded: add sizes or seeds)") : "(no bootstrap)")
      << " (law " << law_name(r.law) << ", " << percent_text(r.confidence) << " bootstrap interval over "
      << (r.bootstrap_unit.empty() ? std::string(kResampleSizes) : r.bootstrap_unit) << ", " << r.bootstrap_used << "/"
      << r.bootstrap_requested << " resamples";
  if (const GroupFit* g = find_named(r.groups, &GroupFit::group, m.variant)) out << "; " << design_text(*g);
  out << "; " << where << ")";
  if (resampled && e.bounded() && includes_one(e)) out << "; the interval includes 1×";
  if (m.profile && m.profile->open()) {
    out << "; the fit cannot tell multipliers from " << fixed(m.profile->lo, 2) << " to " << fixed(m.profile->hi, 2)
        << " apart, and beyond: the law does not identify it";
  } else if (m.profile) {
    out << "; the fit's objective allows " << fixed(m.profile->lo, 2) << " to " << fixed(m.profile->hi, 2);
  }
  return out.str();
}

// Why two intervals disagree, or nothing when they agree.
std::optional<std::string> disagreement(const Estimate& local, const Estimate& law) {
  const bool local_excludes = !includes_one(local), law_excludes = !includes_one(law);
  if (local.hi < law.lo || law.hi < local.lo) return std::string("the two intervals do not overlap");
  if (local_excludes && !law_excludes) return std::string("the local multiplier's interval excludes 1× and the law's does not");
  if (law_excludes && !local_excludes) return std::string("the law's interval excludes 1× and the local multiplier's does not");
  return std::nullopt;
}

std::string holdout_line(const Comparison& c) {
  return "the laws miss the largest size's mean loss by up to " + fixed(100.0 * c.holdout_error, 1) +
         "% predicting it from the others, more than the " + fixed(100.0 * c.relative_effect, 1) +
         "% difference being measured: a law-based figure is not supported by the data";
}

ComparisonVerdict verdict_of(const FitReport& r, const Comparison& c) {
  ComparisonVerdict v;
  v.variant = c.variant;
  v.reference = c.baseline;
  const Multiplier* m = nullptr;
  for (const auto& candidate : r.multipliers) {
    if (candidate.variant == c.variant && candidate.baseline == c.baseline) m = &candidate;
  }
  const auto law = m ? law_figure(*m) : std::nullopt;
  const bool law_interval = law && r.bootstrap_used > 0 && law->first.bounded();
  if (local_available(r, c)) {
    v.estimator = kEstimatorLocal;
    const HeadlineMultiplier local = headline_multiplier(c);
    const bool local_interval = has_interval(local.estimate, true, local.degrees_of_freedom);
    std::optional<std::string> why;
    if (local_interval && law_interval && !c.holdout_exceeds_effect()) why = disagreement(local.estimate, law->first);
    v.settled = !why;
    std::string headline = claim(c.variant, c.baseline, local.estimate) + " " +
                           interval_text(local.estimate, true, local.degrees_of_freedom) + " " + local.where;
    if (local_interval && includes_one(local.estimate)) headline += "; the interval includes 1×: no clear difference";
    v.headline = why ? "not settled: " + *why + ": " + headline + " by the local multiplier; " +
                           claim(c.variant, c.baseline, law->first) + " " + interval_text(law->first, true, 2) +
                           " by the law"
                     : headline;
    v.details.push_back(local_method(r, c));
    v.details.push_back(local_sizes(c, true));
    if (c.chord) {
      v.details.push_back("two sizes only: m_local is read off the chord between them, which overstates it on a "
                          "convex curve; a third size removes that bias");
    }
    if (law) {
      v.details.push_back("check, " + law_line(r, *m, law->first, law->second) +
                          (why ? ": disagrees" : law_interval && local_interval ? ": agrees" : ""));
    }
    if (c.holdout_exceeds_effect()) v.details.push_back("but " + holdout_line(c) + "; the local multiplier is");
    return v;
  }
  if (law) {
    v.estimator = kEstimatorLaw;
    v.headline = law_line(r, *m, law->first, law->second);
    if (!c.ladder) {
      v.details.push_back("no local multiplier: " + c.baseline + "'s sizes have different numbers of token counts, "
                          "so its runs trace no curves in compute");
    } else if (!seeds_resampled(r)) {
      v.details.push_back("no local multiplier interval: " + no_seed_resampling(r));
    }
    if (c.holdout_exceeds_effect()) v.details.push_back("but " + holdout_line(c));
    return v;
  }
  v.headline = c.variant + ": no multiplier over " + c.baseline +
               (!c.ladder ? " (" + c.baseline + "'s sizes trace no curves in compute, and no law gives one)"
                : c.sizes_pooled == 0 ? " (" + c.baseline + "'s sizes never reach its loss)"
                                      : " (" + no_seed_resampling(r) + ")");
  return v;
}

}  // namespace

HeadlineMultiplier headline_multiplier(const Comparison& c) {
  if (c.trend_resolved()) {
    return {c.at_largest, static_cast<double>(c.largest_degrees_of_freedom),
            "at the largest size measured, where it changes with scale"};
  }
  return {c.local, c.degrees_of_freedom, "at the sizes measured"};
}

std::vector<ComparisonVerdict> comparison_verdicts(const FitReport& report) {
  std::vector<ComparisonVerdict> out;
  for (const auto& c : report.comparisons) out.push_back(verdict_of(report, c));
  // A law's multiplier no comparison holds (a report stored before comparisons were made) has the law's verdict.
  for (const auto& m : report.multipliers) {
    const bool held = std::any_of(report.comparisons.begin(), report.comparisons.end(), [&](const Comparison& c) {
      return c.variant == m.variant && c.baseline == m.baseline;
    });
    if (held) continue;
    Comparison none;
    none.variant = m.variant;
    none.baseline = m.baseline;
    none.holdout_error = std::numeric_limits<double>::quiet_NaN();
    out.push_back(verdict_of(report, none));
  }
  return out;
}

}  // namespace gammalab
