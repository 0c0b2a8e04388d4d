#pragma once
// Ends the tune stage of sweeps that have one (core/sweep/tune.h): once every tune job of a sweep has ended,
// it reads their final losses, picks the best tuned values per group and adds the main stage's jobs with
// them; when a group has no pick (a best value on the edge of the grid, every run failed) it stores why and
// adds nothing. Runs on a background thread woken by store changes, so it follows every way a tune job can
// end (finish, lease expiry, reuse at submission) and a coordinator restart.
#include <atomic>
#include <string>
#include <thread>

#include "server/store.h"

namespace gammalab {

class TuneStage {
 public:
  // `background`: run the thread; tests call advance() themselves.
  TuneStage(Store& store, bool background);
  ~TuneStage();  // stops and joins

  // Resolves the sweep's tune stage if it has ended. Returns true when the sweep no longer awaits it.
  // Throws when the stored source no longer expands (a coordinator whose presets changed under it).
  bool advance(const std::string& sweep_id);

 private:
  void run();
  Store& store_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace gammalab
