#include "server/pending_reason.h"

#include <algorithm>

namespace gammalab {

namespace {

std::string slots_text(int n) { return std::to_string(n) + (n == 1 ? " slot" : " slots"); }

}  // namespace

std::string pending_reason(int slots_per_node, int nodes, const std::vector<int>& live_worker_slots) {
  slots_per_node = std::max(1, slots_per_node);
  nodes = std::max(1, nodes);
  const std::string slots = slots_text(slots_per_node);
  const std::string needs = nodes == 1 ? "needs " + slots + " of one worker"
                                       : "needs " + std::to_string(nodes) + " workers with " + slots + " each";
  if (live_worker_slots.empty()) return needs + "; no worker is alive (or every one is draining)";
  const auto fitting = std::count_if(live_worker_slots.begin(), live_worker_slots.end(),
                                     [slots_per_node](int slots) { return slots >= slots_per_node; });
  if (fitting >= nodes) return "";
  const int largest = live_worker_slots.front();  // largest first (Store::live_worker_slots)
  if (nodes == 1) {
    return needs + " (its world_size); the largest live worker has " + slots_text(largest) +
           ": start a worker with --slots " + std::to_string(slots_per_node) + " or more, or lower world_size";
  }
  return needs + " (world_size / nodes); " + std::to_string(fitting) + " live " +
         (fitting == 1 ? "worker has" : "workers have") + " " + slots + " or more: start " +
         std::to_string(nodes - fitting) + " more with --slots " + std::to_string(slots_per_node) +
         " or more, or lower nodes";
}

void explain_pending(Store& store, std::int64_t worker_timeout_ms, std::vector<JobRecord*> jobs) {
  const bool any_pending =
      std::any_of(jobs.begin(), jobs.end(), [](const JobRecord* j) { return j->state == JobState::kPending; });
  if (!any_pending) return;
  explain_pending(store.live_worker_slots(worker_timeout_ms), std::move(jobs));
}

std::string pending_basis(const std::vector<int>& live) {
  if (live.empty()) return "none";
  std::string out;
  for (int slots : live) out += (out.empty() ? "" : ",") + std::to_string(slots);
  return out;
}

void explain_pending(const std::vector<int>& live, std::vector<JobRecord*> jobs) {
  for (JobRecord* job : jobs) {
    // A branch waiting for its run's checkpoint has its reason already (store_rows::read_job): it comes first.
    const bool waiting_branch =
        !job->parent_id.empty() && job->branch_start_job_id.empty() && !job->pending_reason.empty();
    if (job->state == JobState::kPending && !waiting_branch) {
      job->pending_reason = pending_reason(job->slots_per_node, job->nodes, live);
    }
  }
}

}  // namespace gammalab
