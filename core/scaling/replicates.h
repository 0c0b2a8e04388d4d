#pragma once
// Replicated runs: the runs of one group at one model size and token budget, i.e. the seeds of one
// configuration. They are the unit the fit summarises (mean and standard error per size) and the bootstrap
// resamples (core/scaling/bootstrap.h): the sizes are the experimenter's design, the seed is the noise.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/scaling/law.h"

namespace gammalab {

struct ReplicateCell {
  std::string group;
  double params = 0.0, tokens = 0.0, compute = 0.0;
  std::vector<std::size_t> runs;  // indices into the runs the cells were made from
  double mean_loss = 0.0;         // over those runs
};

// Cells keyed by exact (group, N, D, C): runs of one configuration have bit-equal sizes. In order of first
// appearance.
std::vector<ReplicateCell> replicate_cells(const std::vector<RunPoint>& runs);

// True when every cell has at least two runs, so that seed noise can be estimated everywhere.
bool every_cell_replicated(const std::vector<ReplicateCell>& cells);

// One point per configuration, its loss the mean over its seeds (seed and label cleared), in the cells' order.
// The laws are fitted to these: the law's constant then describes the mean over seeds, as the local multiplier
// does (a Huber fit to single runs describes a robust location of their losses, which under skewed seed noise
// is not the mean), and a configuration counts once however many seeds it ran.
std::vector<RunPoint> configuration_means(const std::vector<RunPoint>& runs);

// The seeds' scatter of a configuration's mean in ln L (pure error): the pooled within-configuration s.d. of
// ln L over the configurations with two or more runs, over the square root of their mean number of runs.
// nullopt without a replicated configuration. It sets the Huber delta of the laws' fits (core/scaling/fit.h).
std::optional<double> mean_log_scatter(const std::vector<RunPoint>& runs);

struct CellSummary {
  double params = 0.0, tokens = 0.0, compute = 0.0;
  int runs = 0;
  double mean = 0.0;            // mean final loss over the cell's runs
  double standard_error = 0.0;  // sample standard deviation / sqrt(runs); NaN with one run
};

CellSummary summarise(const ReplicateCell& cell, const std::vector<RunPoint>& runs);

}  // namespace gammalab
