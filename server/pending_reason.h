#pragma once
// Why a pending job is not being leased, for the people waiting on it (GetJob, ListJobs, the HTTP API): it
// needs more slots of one worker than any live worker has, or more workers with its share of slots than are
// alive, or no worker is alive. A job that only waits for a
// slot to free up gets no reason. Computed on every read from the live workers, so it is never stale.
#include <cstdint>
#include <string>
#include <vector>

#include "core/job_record.h"
#include "server/store.h"

namespace gammalab {

// The reason for a job needing `slots_per_node` slots of each of `nodes` workers, given the slots of each live worker,
// largest first; empty when enough such workers are alive.
std::string pending_reason(int slots_per_node, int nodes, const std::vector<int>& live_worker_slots);

// Sets pending_reason on each pending job of `jobs` (a worker is live when it heartbeat within
// `worker_timeout_ms` and is not draining). One store query, whatever the number of jobs.
void explain_pending(Store& store, std::int64_t worker_timeout_ms, std::vector<JobRecord*> jobs);
// The same from the live workers' slots (largest first) already read: a reader that keeps them as the basis of
// the reasons it was given (Coordinator::jobs_changed) explains with what it keeps.
void explain_pending(const std::vector<int>& live_worker_slots, std::vector<JobRecord*> jobs);

// The live workers' slots as a reader compares them, to know when the reasons it holds may be out of date:
// "8,8,4", or "none" when no worker is alive (the HTTP API's X-Pending-Basis).
std::string pending_basis(const std::vector<int>& live_worker_slots);

}  // namespace gammalab
