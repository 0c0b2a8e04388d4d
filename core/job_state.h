#pragma once
// A job's states, their one spelling and the transitions between them: the coordinator's store checks every
// state change here, and every printer (proto mapping, HTTP API, CLI, the dashboard through /api/meta) takes
// the names from here. Plain C++, no gRPC: the proto mapping is in proto/convert.h.
#include <array>
#include <optional>
#include <string_view>

namespace gammalab {

enum class JobState { kPending, kLeased, kRunning, kSucceeded, kFailed, kCancelled };

// Every state, in the order of a job's life.
inline constexpr std::array<JobState, 6> kJobStates = {JobState::kPending,   JobState::kLeased, JobState::kRunning,
                                                       JobState::kSucceeded, JobState::kFailed, JobState::kCancelled};

// "pending", "leased", "running", "succeeded", "failed", "cancelled": the one spelling, in the database, the
// HTTP API's JSON, the CLI's tables and the dashboard.
std::string_view job_state_name(JobState state);
// The state of that exact (lowercase) name; nullopt for anything else.
std::optional<JobState> parse_job_state(std::string_view name);

// Succeeded, failed or cancelled: the job does not run again unless retried (or, for failed and cancelled,
// requeued by hand).
bool is_terminal(JobState state);
// Leased or running: a worker holds the job's current attempt.
bool is_active(JobState state);

// One allowed change of state. `from` is nullopt for a job being created.
struct JobTransition {
  std::optional<JobState> from;
  JobState to;
};

// Every allowed transition; anything not listed is refused.
inline constexpr std::array<JobTransition, 15> kJobTransitions = {{
    {std::nullopt, JobState::kPending},    // a sweep's job is stored
    {std::nullopt, JobState::kSucceeded},  // a resubmitted config reuses a succeeded job's result
    {JobState::kPending, JobState::kLeased},     // a worker takes the job
    {JobState::kPending, JobState::kCancelled},  // cancelled before any worker took it
    {JobState::kLeased, JobState::kRunning},     // the worker's trainer started
    // The attempt ended: succeeded; failed with no retries left (or its lease expired on the last one);
    // stopped on a cancel request; requeued (retries left, lease lost, or handed back by a draining worker).
    {JobState::kLeased, JobState::kSucceeded},
    {JobState::kLeased, JobState::kFailed},
    {JobState::kLeased, JobState::kCancelled},
    {JobState::kLeased, JobState::kPending},
    {JobState::kRunning, JobState::kSucceeded},
    {JobState::kRunning, JobState::kFailed},
    {JobState::kRunning, JobState::kCancelled},
    {JobState::kRunning, JobState::kPending},
    {JobState::kFailed, JobState::kPending},     // retried by hand
    {JobState::kCancelled, JobState::kPending},  // retried by hand
}};

bool transition_allowed(std::optional<JobState> from, JobState to);

// How an attempt ended, as its worker reported it (the proto's JobOutcome maps onto it, proto/convert.h), or
// kLeaseExpired when its worker went silent.
// kWorkerFault: failed in a way the worker's own environment may have caused (exit_codes::may_be_the_workers_fault):
// back to pending without using up an attempt, like a hand-back.
enum class AttemptEnd { kSucceeded, kFailed, kFailedPermanently, kCancelled, kHandedBack, kLeaseExpired, kWorkerFault };
// The policy beside the table: where a job goes when its attempt ends so. Success stands even when a cancel was
// asked meanwhile; otherwise a cancel request wins; a hand-back (a draining worker) goes back to the queue
// whatever attempts are left; a permanent failure fails at once; any other failure, and a lost lease, go back
// to the queue while attempts are left (`retries_left`), else fail. Every result is an allowed transition from
// leased and from running (tests/core/job_state_test.cpp).
JobState state_after_attempt(AttemptEnd end, bool cancel_requested, bool retries_left);
// Throws std::logic_error naming both states when the transition is not allowed (a store bug, never input).
void check_transition(std::optional<JobState> from, JobState to);

// Why a user's action on a job in `state` is refused, in the same words from every door (gRPC, HTTP):
// "job 7 has succeeded; only failed or cancelled jobs can be retried".
std::string retry_refusal(std::string_view job_id, JobState state);
std::string cancel_refusal(std::string_view job_id, JobState state);

}  // namespace gammalab
