#pragma once
// Keeps each sweep's scaling-law fit current: whenever the set of succeeded jobs of a sweep changes, it fits
// their final losses (core fit_runs, grouped by variant) on a background thread and stores a new fit version
// with the job ids it used. When the default law is L(N) (tokens tied to parameters), the version also holds
// L(C) on the same runs, whose report carries each variant's compute multiplier over the baseline with its
// interval. Sweeps that cannot be fitted yet (not_enough_sizes: too few distinct sizes per group) are skipped
// quietly; any other failure of a fit is logged as an error.
#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "server/store.h"

namespace gammalab {

struct RefitOptions {
  bool enabled = true;
  std::string group_by = "scale.variant";
  int bootstrap = 200;   // resamples per refit: intervals, at a cost of seconds per sweep
  int settle_ms = 2000;  // wait for more jobs to finish before refitting (jobs of a sweep end in bursts)
};

class Refitter {
 public:
  Refitter(Store& store, RefitOptions options);
  ~Refitter();  // stops and joins

  // Fits one sweep now if its succeeded jobs differ from those of its latest fit. Returns the new version,
  // or 0 when nothing was stored (no change, or not enough runs). Throws when the fit itself fails.
  int refit(const std::string& sweep_id);

 private:
  void run();
  Store& store_;
  RefitOptions options_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace gammalab
