#include "server/pending_reason.h"

#include <algorithm>

namespace gammalab {

namespace {

std::string slots_text(int n) { return std::to_string(n) + (n == 1 ? " slot" : " slots"); }

}  // namespace

std::string pending_reason(int gpus, int largest_live_slots) {
  gpus = std::max(1, gpus);
  if (largest_live_slots <= 0) {
    return "needs " + slots_text(gpus) + " of one worker; no worker is alive (or every one is draining)";
  }
  if (gpus <= largest_live_slots) return "";
  return "needs " + slots_text(gpus) + " of one worker (its world_size); the largest live worker has " +
         slots_text(largest_live_slots) + ": start a worker with --slots " + std::to_string(gpus) +
         " or more, or lower world_size";
}

void explain_pending(Store& store, std::int64_t worker_timeout_ms, std::vector<v1::Job*> jobs) {
  const bool any_pending =
      std::any_of(jobs.begin(), jobs.end(), [](const v1::Job* j) { return j->state() == v1::JOB_STATE_PENDING; });
  if (!any_pending) return;
  const int largest = store.largest_live_worker_slots(worker_timeout_ms);
  for (v1::Job* job : jobs) {
    if (job->state() == v1::JOB_STATE_PENDING) job->set_pending_reason(pending_reason(job->gpus(), largest));
  }
}

}  // namespace gammalab
