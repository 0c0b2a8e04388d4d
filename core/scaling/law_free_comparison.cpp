// The law-free comparisons alone (core/scaling/law_free_comparison.h).
#include "core/scaling/law_free_comparison.h"

#include <set>

#include "core/scaling/bootstrap.h"
#include "core/scaling/pairing.h"
#include "core/scaling/replicates.h"
#include "core/scaling/run_order.h"

namespace gammalab {

std::vector<Comparison> compare_without_law(std::vector<RunPoint> runs, const std::string& reference, int resamples,
                                            std::uint64_t seed, double confidence) {
  put_in_canonical_order(runs);
  std::set<std::string> others;
  for (const RunPoint& run : runs) {
    if (run.group != reference) others.insert(run.group);
  }
  std::vector<std::string> groups = {reference};
  groups.insert(groups.end(), others.begin(), others.end());
  const std::vector<ReplicateCell> cells = replicate_cells(runs);
  const Pairing pairing = pair_cells(runs, cells, groups);
  std::vector<ComparisonPlan> plans;
  std::vector<std::vector<double>> points;
  for (std::size_t g = 1; g < groups.size(); ++g) {
    plans.push_back(plan_comparison(runs, cells, pairing, groups, g));
    points.push_back(comparison_values(plans.back(), runs));
  }
  std::vector<std::vector<std::vector<double>>> draws(plans.size());
  for (std::size_t p = 0; p < plans.size(); ++p) draws[p].resize(points[p].size());
  for (int b = 0; b < resamples; ++b) {
    const std::uint64_t stream = resample_seed(seed, static_cast<std::uint64_t>(b));
    // Unpaired runs (an arm without some seed of the reference's) are drawn within their own cells.
    const std::vector<RunPoint> sample = pairing.complete ? resample_paired(runs, cells, pairing, stream)
                                                          : resample_within_cells(runs, cells, stream);
    for (std::size_t p = 0; p < plans.size(); ++p) {
      const std::vector<double> values = comparison_values(plans[p], sample);
      for (std::size_t k = 0; k < values.size(); ++k) draws[p][k].push_back(values[k]);
    }
  }
  std::vector<Comparison> out;
  for (std::size_t p = 0; p < plans.size(); ++p) {
    std::vector<Estimate> tracked;
    for (std::size_t k = 0; k < points[p].size(); ++k) {
      const Interval interval = percentile_interval(draws[p][k], confidence);
      tracked.push_back({"", points[p][k], interval.lo, interval.hi});
    }
    out.push_back(describe_comparison(plans[p], runs, std::move(tracked), pairing.complete, confidence));
  }
  return out;
}

}  // namespace gammalab
