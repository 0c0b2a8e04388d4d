// The job state machine's names, flags and transition check (the table is in core/job_state.h).
#include "core/job_state.h"

#include <stdexcept>
#include <string>

namespace gammalab {

namespace {

using S = JobState;

std::string describe(std::optional<JobState> state) {
  return state ? std::string(job_state_name(*state)) : std::string("(new)");
}

}  // namespace

std::string_view job_state_name(JobState state) {
  switch (state) {
    case S::kPending:
      return "pending";
    case S::kLeased:
      return "leased";
    case S::kRunning:
      return "running";
    case S::kSucceeded:
      return "succeeded";
    case S::kFailed:
      return "failed";
    case S::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

std::optional<JobState> parse_job_state(std::string_view name) {
  for (JobState s : kJobStates) {
    if (job_state_name(s) == name) return s;
  }
  return std::nullopt;
}

bool is_terminal(JobState state) {
  return state == S::kSucceeded || state == S::kFailed || state == S::kCancelled;
}

bool is_active(JobState state) { return state == S::kLeased || state == S::kRunning; }

bool transition_allowed(std::optional<JobState> from, JobState to) {
  for (const JobTransition& t : kJobTransitions) {
    if (t.from == from && t.to == to) return true;
  }
  return false;
}

JobState state_after_attempt(AttemptEnd end, bool cancel_requested, bool retries_left) {
  switch (end) {
    case AttemptEnd::kSucceeded:
      return JobState::kSucceeded;
    case AttemptEnd::kCancelled:
      return JobState::kCancelled;
    case AttemptEnd::kHandedBack:
    case AttemptEnd::kWorkerFault:
      retries_left = true;  // a drained worker's hand-back, or a worker's own fault, does not use up an attempt
      break;
    case AttemptEnd::kFailedPermanently:
      retries_left = false;  // another try would fail alike
      break;
    case AttemptEnd::kFailed:
    case AttemptEnd::kLeaseExpired:
      break;
  }
  if (cancel_requested) return JobState::kCancelled;
  return retries_left ? JobState::kPending : JobState::kFailed;
}

void check_transition(std::optional<JobState> from, JobState to) {
  if (!transition_allowed(from, to)) {
    throw std::logic_error("job state: " + describe(from) + " -> " + describe(to) + " is not an allowed transition");
  }
}

namespace {

// "is running", "has succeeded", "has failed", "was cancelled": a state as the subject of a sentence.
std::string state_phrase(JobState state) {
  switch (state) {
    case JobState::kSucceeded:
    case JobState::kFailed:
      return "has " + std::string(job_state_name(state));
    case JobState::kCancelled:
      return "was cancelled";
    default:
      return "is " + std::string(job_state_name(state));
  }
}

}  // namespace

std::string retry_refusal(std::string_view job_id, JobState state) {
  return "job " + std::string(job_id) + " " + state_phrase(state) + "; only failed or cancelled jobs can be retried";
}

std::string cancel_refusal(std::string_view job_id, JobState state) {
  return "job " + std::string(job_id) + " " + state_phrase(state) +
         "; only pending, leased or running jobs can be cancelled";
}

}  // namespace gammalab
