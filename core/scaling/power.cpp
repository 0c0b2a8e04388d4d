// Simulated power of a paired sweep (core/scaling/power.h).
#include "core/scaling/power.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include "core/scaling/bootstrap.h"
#include "core/scaling/comparison.h"
#include "core/scaling/law_free_comparison.h"
#include "core/scaling/verdict.h"

namespace gammalab {

namespace {

const std::vector<std::string> kGroups = {"baseline", "variant"};

// One simulated study: baseline and variant runs of every size and seed, tokens tied to N (D = 20·N).
// Each size's LR picks and each run pair's noise come from a stream of their own, keyed by the study, the size's
// compute and the seed: two designs that share a size and seed draw the same runs there (common random numbers),
// so comparing designs (core/scaling/next_move.h) sees the design's difference, not a reshuffle of the noise.
std::vector<RunPoint> draw_study(const PowerDesign& d, std::uint64_t study_stream) {
  const double shared_sd = d.noise * std::sqrt(d.seed_correlation);
  const double own_sd = d.noise * std::sqrt(1.0 - d.seed_correlation);
  const double t_scale = d.noise_df > 2.0 ? std::sqrt((d.noise_df - 2.0) / d.noise_df) : 1.0;
  std::vector<RunPoint> runs;
  for (std::size_t i = 0; i < d.compute.size(); ++i) {
    const double c = d.compute[i];
    const double n = std::sqrt(c / 120.0);
    const std::uint64_t size_stream = resample_seed(study_stream, std::bit_cast<std::uint64_t>(c));
    double base = 3.0 - d.loss_slope * std::log(c / d.compute.front());
    double variant = base - d.loss_slope * std::log(d.multiplier);
    if (d.pick_noise > 0.0 && d.lr_curvature > 0.0) {  // each arm's LR pick at this size, off by its own draw
      std::mt19937_64 rng(size_stream);
      std::normal_distribution<double> z(0.0, 1.0);
      for (double* mean : {&base, &variant}) {
        const double off = d.pick_noise * z(rng);
        *mean += d.lr_curvature * off * off;
      }
    }
    for (int s = 0; s < seeds_at(d, i); ++s) {
      std::mt19937_64 rng(resample_seed(size_stream, static_cast<std::uint64_t>(s) + 1));
      std::normal_distribution<double> z(0.0, 1.0);
      // A run's own noise in units of its s.d.: the measured shape, Student's t, or a normal.
      std::uniform_int_distribution<std::size_t> pick_residual(0, d.noise_shape.empty() ? 0 : d.noise_shape.size() - 1);
      std::student_t_distribution<double> t(d.noise_df > 2.0 ? d.noise_df : 3.0);
      auto own = [&] {
        if (!d.noise_shape.empty()) return d.noise_shape[pick_residual(rng)];
        if (d.noise_df > 2.0) return t_scale * t(rng);
        return z(rng);
      };
      const double shared = shared_sd * z(rng);
      for (const auto& [group, mean] : {std::pair{kGroups[0], base}, std::pair{kGroups[1], variant}}) {
        RunPoint run{n, 20.0 * n, c, mean + shared + own_sd * own(), group, ""};
        run.seed = static_cast<std::uint64_t>(s);
        runs.push_back(std::move(run));
      }
    }
  }
  return runs;
}

// The pooled local multiplier of one study, as fit_runs reports it.
Comparison analyse(const std::vector<RunPoint>& runs, const PowerDesign& d, std::uint64_t study) {
  return compare_without_law(runs, kGroups[0], d.resamples, resample_seed(d.seed, study), d.confidence).at(0);
}

void validate(const PowerDesign& d) {
  if (d.compute.size() < 2) throw std::invalid_argument("power: a comparison needs 2 or more sizes");
  if (d.seeds < 1) throw std::invalid_argument("power: seeds must be 1 or more");
  if (!d.seeds_per_size.empty()) {
    if (d.seeds_per_size.size() != d.compute.size()) {
      throw std::invalid_argument("power: seeds_per_size has " + std::to_string(d.seeds_per_size.size()) +
                                  " counts for " + std::to_string(d.compute.size()) + " sizes");
    }
    for (int k : d.seeds_per_size) {
      if (k < 1) throw std::invalid_argument("power: seeds_per_size holds " + std::to_string(k) + " (1 or more)");
    }
  }
  if (!(d.noise > 0.0) || !(d.loss_slope > 0.0) || !(d.multiplier > 0.0)) {
    throw std::invalid_argument("power: noise, loss slope and multiplier must be positive");
  }
  if (!(d.seed_correlation >= 0.0 && d.seed_correlation < 1.0)) {
    throw std::invalid_argument("power: the seed correlation must lie in [0, 1)");
  }
  if (!(d.noise_df == 0.0 || d.noise_df > 2.0)) {
    throw std::invalid_argument("power: the noise's degrees of freedom must be above 2 (a finite variance), or 0");
  }
  if (!(d.pick_noise >= 0.0) || !(d.lr_curvature >= 0.0)) {
    throw std::invalid_argument("power: the pick noise and the LR curvature must be 0 or more");
  }
  for (double v : d.noise_shape) {
    if (!std::isfinite(v)) throw std::invalid_argument("power: the noise shape holds a value that is not finite");
  }
}

}  // namespace

int seeds_at(const PowerDesign& design, std::size_t i) {
  return design.seeds_per_size.empty() ? design.seeds : design.seeds_per_size.at(i);
}

PowerEstimate simulate_power(const PowerDesign& design) {
  validate(design);
  PowerEstimate out;
  std::vector<double> ratios;
  std::vector<int> inside;
  int excluded = 0, covered = 0;
  for (int study = 0; study < design.studies; ++study) {
    const std::uint64_t stream = resample_seed(design.seed ^ 0x5eedULL, static_cast<std::uint64_t>(study));
    const Comparison c = analyse(draw_study(design, stream), design, static_cast<std::uint64_t>(study));
    inside.push_back(c.sizes_inside);
    // The very figure the verdict would quote, and only where it would print its interval.
    const HeadlineMultiplier headline = headline_multiplier(c);
    if (!headline.has_interval()) continue;
    const Estimate& m = headline.estimate;
    ratios.push_back(m.hi / m.lo);
    excluded += design.multiplier >= 1.0 ? m.lo > 1.0 : m.hi < 1.0;
    covered += m.lo <= design.multiplier && design.multiplier <= m.hi;
  }
  out.coverage = ratios.empty() ? 0.0 : static_cast<double>(covered) / static_cast<double>(ratios.size());
  out.studies = design.studies;
  out.power = design.studies > 0 ? static_cast<double>(excluded) / design.studies : 0.0;
  std::sort(inside.begin(), inside.end());
  out.sizes_inside = inside.empty() ? 0 : inside[inside.size() / 2];
  std::sort(ratios.begin(), ratios.end());
  out.median_ratio = ratios.empty() ? std::numeric_limits<double>::quiet_NaN() : quantile_sorted(ratios, 0.5);
  return out;
}

std::optional<SeedsFound> fewest_seeds_reaching(PowerDesign design, int from, int max_seeds,
                                                const std::function<bool(const PowerEstimate&)>& reaches) {
  design.seeds_per_size.clear();
  std::optional<SeedsFound> found;
  auto tried = [&](int seeds) {
    design.seeds = seeds;
    const PowerEstimate estimate = simulate_power(design);
    if (!reaches(estimate)) return false;
    found = SeedsFound{seeds, estimate};
    return true;
  };
  int lo = std::max(from, 1), hi = lo;
  while (!tried(hi)) {
    if (hi >= max_seeds) return std::nullopt;
    lo = hi + 1;
    hi = std::min(2 * hi, max_seeds);
  }
  while (lo < hi) {
    const int mid = (lo + hi) / 2;
    if (tried(mid)) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return found;
}

std::optional<int> seeds_for_power(PowerDesign design, double target, int max_seeds) {
  const auto found = fewest_seeds_reaching(design, design.seeds, max_seeds,
                                           [&](const PowerEstimate& e) { return e.power >= target; });
  return found ? std::optional<int>(found->seeds) : std::nullopt;
}

}  // namespace gammalab
