// Every (from, to) pair of job states through the store: the job is put into `from` through the store's own
// operations, then every operation that can lead to `to` is tried on a fresh copy. The store must make exactly
// the changes core/job_state.h allows, and metric ingest must never change a state.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>

#include "core/job_state.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

// One store with one sweep of one job (max_attempts 1: a failed attempt is the last one), and its worker.
struct Case {
  std::filesystem::path path = temp_db("transitions");
  std::unique_ptr<Store> store = std::make_unique<Store>(path.string());
  std::string worker = store->register_worker("host", 1, {}, "");
  std::string sweep = store->create_sweep(make_sweep("t", 1, 0, 1), "", "", false).sweep.id;
  std::string job = store->list_jobs(sweep).at(0).id;

  ~Case() {
    store.reset();
    std::filesystem::remove_all(path.parent_path());
  }
  JobRecord read() { return *store->find_job(job); }
  JobState state() { return read().state; }
  int attempt() { return read().attempt; }
  bool finish(AttemptEnd end) { return store->finish(worker, job, attempt(), end, "x"); }
};

// Puts the case's job into `state` through the store.
void enter(Case& c, JobState state) {
  switch (state) {
    case JobState::kPending:
      break;
    case JobState::kLeased:
      ASSERT_TRUE(c.store->lease(c.worker, 60000));
      break;
    case JobState::kRunning:
      ASSERT_TRUE(c.store->lease(c.worker, 60000));
      ASSERT_TRUE(c.store->start(c.worker, c.job, 1));
      break;
    case JobState::kSucceeded:
      ASSERT_TRUE(c.store->lease(c.worker, 60000));
      ASSERT_TRUE(c.finish(AttemptEnd::kSucceeded));
      break;
    case JobState::kFailed:
      ASSERT_TRUE(c.store->lease(c.worker, 60000));
      ASSERT_TRUE(c.finish(AttemptEnd::kFailed));
      break;
    case JobState::kCancelled:
      ASSERT_EQ(c.store->cancel(c.sweep, {c.job}), 1);
      break;
  }
  ASSERT_EQ(c.state(), state) << "setting up " << job_state_name(state);
}

using Operation = std::function<void(Case&)>;

// The store operations that can lead to each state (whether they do depends on the state they start from).
std::map<JobState, std::map<std::string, Operation>> operations() {
  const Operation expire = [](Case& c) {
    c.store->heartbeat(c.worker, {{c.job, c.attempt()}}, false, /*lease_timeout_ms=*/-1000);  // runs out now
    c.store->expire_leases();
  };
  return {
      {JobState::kPending,
       {{"retry", [](Case& c) { c.store->retry(c.job); }},
        {"finish(handed back)", [](Case& c) { c.finish(AttemptEnd::kHandedBack); }}}},
      {JobState::kLeased, {{"lease", [](Case& c) { c.store->lease(c.worker, 60000); }}}},
      {JobState::kRunning, {{"start", [](Case& c) { c.store->start(c.worker, c.job, c.attempt()); }}}},
      {JobState::kSucceeded, {{"finish(succeeded)", [](Case& c) { c.finish(AttemptEnd::kSucceeded); }}}},
      // (max_attempts 1: the first failed or expired attempt is the last.)
      {JobState::kFailed,
       {{"finish(failed)", [](Case& c) { c.finish(AttemptEnd::kFailed); }}, {"expire", expire}}},
      {JobState::kCancelled,
       {{"cancel", [](Case& c) { c.store->cancel(c.sweep, {c.job}); }},
        {"cancel, then finish(failed)",
         [](Case& c) {
           c.store->cancel(c.sweep, {c.job});
           c.finish(AttemptEnd::kFailed);
         }},
        {"finish(cancelled)", [](Case& c) { c.finish(AttemptEnd::kCancelled); }},
        {"cancel, then expire",
         [expire](Case& c) {
           c.store->cancel(c.sweep, {c.job});
           expire(c);
         }}}},
  };
}

TEST(JobTransitions, TheStoreMakesExactlyTheAllowedChanges) {
  const auto ops = operations();
  for (JobState from : kJobStates) {
    for (JobState to : kJobStates) {
      bool reached = false;
      for (const auto& [name, op] : ops.at(to)) {
        Case c;
        ASSERT_NO_FATAL_FAILURE(enter(c, from));
        op(c);
        if (c.state() == to && to != from) reached = true;
        // Whatever the operation did, the job's history ends in the state the job is in: no change is missed.
        const auto history = c.store->job_events(c.job, 1000);
        ASSERT_FALSE(history.events.empty());
        EXPECT_EQ(history.events.back().state, c.state()) << job_state_name(from) << ", then " << name;
      }
      EXPECT_EQ(reached, transition_allowed(from, to))
          << job_state_name(from) << " -> " << job_state_name(to) << (reached ? ": the store made a change the "
                                                                                 "table forbids"
                                                                               : ": the store has no way to make "
                                                                                 "an allowed change");
    }
  }
}

TEST(JobTransitions, ANewJobIsPendingOrReusesASucceededOne) {
  for (JobState s : kJobStates) {
    EXPECT_EQ(transition_allowed(std::nullopt, s), s == JobState::kPending || s == JobState::kSucceeded)
        << job_state_name(s);
  }
  Case c;
  EXPECT_EQ(c.state(), JobState::kPending);
  enter(c, JobState::kSucceeded);
  const auto again = c.store->create_sweep(make_sweep("t", 1, 0, 1), "", "", false);
  EXPECT_EQ(again.jobs_reused, 1);
  EXPECT_EQ(c.store->list_jobs(again.sweep.id).at(0).state, JobState::kSucceeded);
}

TEST(JobTransitions, MetricIngestNeverChangesAState) {
  for (JobState from : kJobStates) {
    Case c;
    ASSERT_NO_FATAL_FAILURE(enter(c, from));
    c.store->add_metrics(c.job, c.attempt(), {{1, 10, "train/loss", 2.0}, {1, 10, "tokens_per_s", 5.0}});
    EXPECT_EQ(c.state(), from) << job_state_name(from);
  }
}

// The store writes jobs.state in one place, Store::transition (server/store/job_transition.cpp), which checks the
// change against core/job_state.h's table, fences it by the state it leaves and records its event: no other
// statement of the coordinator sets a state (a new job's INSERT aside).
TEST(JobTransitions, OnlyTransitionWritesAState) {
  const std::regex sets_state(R"(SET\s+state\s*=|,\s*state\s*=\s*\?)", std::regex::icase);
  std::vector<std::string> writers;
  const std::filesystem::path server = std::filesystem::path(GAMMALAB_SOURCE_DIR) / "server";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(server)) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string code = text.str();
    if (std::regex_search(code, sets_state)) writers.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(writers, std::vector<std::string>{"job_transition.cpp"});
}

}  // namespace
}  // namespace gammalab::testing
