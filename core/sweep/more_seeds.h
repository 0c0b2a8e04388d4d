#pragma once
// `more_seeds:` (docs/sweeps.md): seeds beyond the sweep's own for the jobs whose axis values match an entry's
// `where`, so that a study grows where more seeds are worth their cost (`gammalab fit --next` names such a move:
// the size and the next seed) and is resubmitted with its finished jobs reused.
#include <cstdint>
#include <vector>

#include "core/sweep/diagnostics.h"
#include "core/sweep/document.h"
#include "core/sweep/job_resolver.h"

namespace gammalab {

// Each entry against the main stage's axes: every `where` key an axis (grid or zip), its value one of that axis's
// values as written, and no seed that the sweep already runs everywhere.
void check_more_seeds(const SweepDocument& doc, DiagnosticList& diagnostics);

// The seeds of one point of the main grid: the sweep's own, then every matching entry's not yet among them.
std::vector<std::uint64_t> point_seeds(const SweepDocument& doc, const JobFields& point);

// The most jobs the entries can add (each entry's seeds times the points its `where` leaves free), counted before
// anything is expanded.
double more_seed_jobs_bound(const SweepDocument& doc);

}  // namespace gammalab
