// The job state machine's names and flags: every state's name parses back to it, nothing else parses, and the
// flags and the table agree with each other (the store's walk over every pair is in tests/service).
#include "core/job_state.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace gammalab {
namespace {

TEST(JobState, NamesRoundTripAndAreDistinct) {
  std::set<std::string> names;
  for (JobState s : kJobStates) {
    const std::string name(job_state_name(s));
    EXPECT_TRUE(parse_job_state(name) == s) << name;
    names.insert(name);
  }
  EXPECT_EQ(names.size(), kJobStates.size());
  EXPECT_EQ(job_state_name(JobState::kRunning), "running");
}

TEST(JobState, ParseRefusesAnythingButTheExactName) {
  for (const char* bad : {"", "Running", "RUNNING", "JOB_STATE_RUNNING", " running", "runnin", "unknown"}) {
    EXPECT_FALSE(parse_job_state(bad).has_value()) << bad;
  }
}

TEST(JobState, FlagsPartitionTheStates) {
  for (JobState s : kJobStates) {
    EXPECT_FALSE(is_active(s) && is_terminal(s)) << job_state_name(s);
    EXPECT_EQ(!is_active(s) && !is_terminal(s), s == JobState::kPending) << job_state_name(s);
  }
  EXPECT_TRUE(is_active(JobState::kLeased));
  EXPECT_TRUE(is_active(JobState::kRunning));
  EXPECT_TRUE(is_terminal(JobState::kSucceeded));
}

TEST(JobState, CheckAgreesWithTheTable) {
  for (const JobTransition& t : kJobTransitions) {
    EXPECT_TRUE(transition_allowed(t.from, t.to));
    EXPECT_NO_THROW(check_transition(t.from, t.to));
  }
  EXPECT_FALSE(transition_allowed(JobState::kSucceeded, JobState::kPending)) << "a success is never rerun in place";
  EXPECT_FALSE(transition_allowed(JobState::kPending, JobState::kRunning)) << "running only after a lease";
  EXPECT_FALSE(transition_allowed(std::nullopt, JobState::kRunning));
  EXPECT_THROW(check_transition(JobState::kRunning, JobState::kLeased), std::logic_error);
  // Every active state can end in every way and be requeued; no terminal state goes anywhere but pending.
  for (JobState from : kJobStates) {
    for (JobState to : kJobStates) {
      if (is_active(from) && (is_terminal(to) || to == JobState::kPending)) {
        EXPECT_TRUE(transition_allowed(from, to));
      }
      if (is_terminal(from) && to != JobState::kPending) {
        EXPECT_FALSE(transition_allowed(from, to));
      }
      if (from == to) {
        EXPECT_FALSE(transition_allowed(from, to)) << job_state_name(from);
      }
    }
  }
}

// A refusal reads as a sentence in every state ("job 1 is succeeded" did not), the same from gRPC and HTTP.
TEST(JobState, TheStateAfterAnAttemptFollowsThePolicyAndIsAlwaysAnAllowedTransition) {
  using E = AttemptEnd;
  using S = JobState;
  // (end, cancel requested, retries left) -> state
  const std::vector<std::tuple<E, bool, bool, S>> policy = {
      {E::kSucceeded, false, false, S::kSucceeded},       {E::kSucceeded, true, true, S::kSucceeded},
      {E::kCancelled, false, true, S::kCancelled},        {E::kCancelled, false, false, S::kCancelled},
      {E::kHandedBack, false, false, S::kPending},        {E::kHandedBack, true, true, S::kCancelled},
      {E::kFailedPermanently, false, true, S::kFailed},   {E::kFailedPermanently, true, true, S::kCancelled},
      {E::kFailed, false, true, S::kPending},             {E::kFailed, false, false, S::kFailed},
      {E::kFailed, true, true, S::kCancelled},            {E::kLeaseExpired, false, true, S::kPending},
      {E::kLeaseExpired, false, false, S::kFailed},       {E::kLeaseExpired, true, false, S::kCancelled},
  };
  for (const auto& [end, cancel, retries, expected] : policy) {
    EXPECT_EQ(state_after_attempt(end, cancel, retries), expected)
        << static_cast<int>(end) << " cancel " << cancel << " retries " << retries;
  }
  for (E end : {E::kSucceeded, E::kFailed, E::kFailedPermanently, E::kCancelled, E::kHandedBack, E::kLeaseExpired}) {
    for (bool cancel : {false, true}) {
      for (bool retries : {false, true}) {
        const S to = state_after_attempt(end, cancel, retries);
        EXPECT_TRUE(transition_allowed(S::kLeased, to)) << job_state_name(to);
        EXPECT_TRUE(transition_allowed(S::kRunning, to)) << job_state_name(to);
      }
    }
  }
}

TEST(JobState, RefusalsNameTheStateAsASentence) {
  EXPECT_EQ(retry_refusal("7", JobState::kSucceeded), "job 7 has succeeded; only failed or cancelled jobs can be retried");
  EXPECT_EQ(retry_refusal("7", JobState::kRunning), "job 7 is running; only failed or cancelled jobs can be retried");
  EXPECT_EQ(cancel_refusal("7", JobState::kFailed), "job 7 has failed; only pending, leased or running jobs can be cancelled");
  EXPECT_EQ(cancel_refusal("7", JobState::kCancelled),
            "job 7 was cancelled; only pending, leased or running jobs can be cancelled");
}

}  // namespace
}  // namespace gammalab
