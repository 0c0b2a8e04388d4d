// A job's history (Store::job_events) through the store's own operations over a real SQLite file: each
// change of state is recorded with its attempt, worker and reason, stale reports record nothing, and the
// history is read bounded.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "server/schema.h"
#include "server/sqlite.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

namespace kind = job_event_kind;

class JobEventsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(path_.parent_path());
  }
  std::vector<JobEvent> events(const std::string& job) { return store_->job_events(job, 1000).events; }
  std::vector<std::string> kinds(const std::string& job) {
    std::vector<std::string> out;
    for (const JobEvent& e : events(job)) out.push_back(e.kind);
    return out;
  }

  std::filesystem::path path_ = temp_db("job-events");
  std::unique_ptr<Store> store_ = std::make_unique<Store>(path_.string());
};

TEST_F(JobEventsTest, AJobsLifeWithAttemptsWorkersAndReasons) {
  const std::string sweep = store_->create_sweep(make_sweep("life", 1, 0, 2), "", "", false).sweep.id;
  const std::string job = store_->list_jobs(sweep).at(0).id;
  const std::string a = store_->register_worker("host-a", 1, {}, "");
  const std::string b = store_->register_worker("host-b", 1, {}, "");

  ASSERT_TRUE(store_->lease(a, 60000));
  ASSERT_TRUE(store_->start(a, job, 1));
  ASSERT_TRUE(store_->finish(a, job, 1, AttemptEnd::kFailed, "gammalab-train exited with code 1: out of memory"));
  ASSERT_TRUE(store_->lease(b, 60000));
  EXPECT_FALSE(store_->finish(a, job, 1, AttemptEnd::kSucceeded, "")) << "a stale report";
  ASSERT_TRUE(store_->finish(b, job, 2, AttemptEnd::kFailed, "diverged: loss is nan"));
  ASSERT_TRUE(store_->retry(job));
  ASSERT_TRUE(store_->lease(a, 60000));
  ASSERT_EQ(store_->cancel(sweep, {job}), 1);
  ASSERT_TRUE(store_->finish(a, job, 1, AttemptEnd::kCancelled, ""));

  EXPECT_EQ(kinds(job), (std::vector<std::string>{"submitted", "leased", "started", "requeued", "leased", "failed",
                                                  "retried", "leased", "cancel_requested", "cancelled"}));
  const std::vector<JobEvent> e = events(job);
  ASSERT_EQ(e.size(), 10u);
  EXPECT_EQ(e[0].state, JobState::kPending);
  EXPECT_EQ(e[0].attempt, 0);
  EXPECT_EQ(e[0].worker_id, "");
  EXPECT_EQ(e[1].state, JobState::kLeased);
  EXPECT_EQ(e[1].attempt, 1);
  EXPECT_EQ(e[1].worker_id, a);
  EXPECT_EQ(e[1].worker_hostname, "host-a");
  EXPECT_EQ(e[2].state, JobState::kRunning);
  EXPECT_EQ(e[3].state, JobState::kPending) << "one attempt was left";
  EXPECT_EQ(e[3].detail, "gammalab-train exited with code 1: out of memory");
  EXPECT_EQ(e[3].worker_hostname, "host-a");
  EXPECT_EQ(e[4].attempt, 2);
  EXPECT_EQ(e[4].worker_hostname, "host-b");
  EXPECT_EQ(e[5].state, JobState::kFailed);
  EXPECT_EQ(e[5].detail, "diverged: loss is nan");
  EXPECT_EQ(e[5].attempt, 2);
  EXPECT_EQ(e[6].state, JobState::kPending);
  EXPECT_EQ(e[6].attempt, 0) << "a retry starts a fresh attempt budget";
  EXPECT_EQ(e[6].detail, "by user, after it was failed on attempt 2");
  EXPECT_EQ(e[7].attempt, 1);
  EXPECT_EQ(e[8].state, JobState::kLeased) << "asking the worker to stop is no change of state";
  EXPECT_EQ(e[8].worker_id, a);
  EXPECT_EQ(e[9].state, JobState::kCancelled);
  EXPECT_EQ(e[9].detail, "cancelled by user");
  for (std::size_t i = 1; i < e.size(); ++i) {
    EXPECT_GT(e[i].id, e[i - 1].id);
    EXPECT_GE(e[i].at_ms, e[i - 1].at_ms);
  }
}

TEST_F(JobEventsTest, PendingCancelExpiredLeaseHandBackAndReuse) {
  const std::string sweep = store_->create_sweep(make_sweep("misc", 3, 0, 1), "", "", false).sweep.id;
  const auto jobs = store_->list_jobs(sweep);
  const std::string w = store_->register_worker("host", 2, {}, "");
  ASSERT_EQ(store_->cancel(sweep, {jobs[2].id}), 1);
  EXPECT_EQ(kinds(jobs[2].id), (std::vector<std::string>{"submitted", "cancelled"}));
  EXPECT_EQ(events(jobs[2].id).back().state, JobState::kCancelled);

  auto first = store_->lease(w, /*lease_timeout_ms=*/-1000);  // already run out
  ASSERT_TRUE(first);
  EXPECT_EQ(store_->expire_leases(), 1);
  const JobEvent expired = events(first->job.id).back();
  EXPECT_EQ(expired.kind, kind::kLeaseExpired);
  EXPECT_EQ(expired.state, JobState::kFailed) << "max_attempts 1";
  EXPECT_EQ(expired.worker_id, w);
  EXPECT_EQ(expired.detail, "lease expired on attempt 1 of 1 (worker lost)");

  auto second = store_->lease(w, 60000);
  ASSERT_TRUE(second);
  ASSERT_TRUE(store_->finish(w, second->job.id, second->attempt, AttemptEnd::kHandedBack, ""));
  EXPECT_EQ(events(second->job.id).back().kind, kind::kHandedBack);
  EXPECT_EQ(events(second->job.id).back().state, JobState::kPending);
  auto again = store_->lease(w, 60000);
  ASSERT_TRUE(again);
  ASSERT_TRUE(store_->finish(w, again->job.id, again->attempt, AttemptEnd::kSucceeded, ""));

  // The same config submitted again reuses the succeeded job's results: recorded with where they came from.
  const std::string resubmitted = store_->create_sweep(make_sweep("misc", 3, 0, 1), "", "", false).sweep.id;
  const auto reused = store_->list_jobs(resubmitted);
  const auto history = events(reused[1].id);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].kind, kind::kReused);
  EXPECT_EQ(history[0].state, JobState::kSucceeded);
  EXPECT_EQ(history[0].detail, "the results of job " + again->job.id + " (same config)");
  EXPECT_EQ(kinds(reused[0].id), std::vector<std::string>{"submitted"}) << "a failed job is not reused";
}

TEST_F(JobEventsTest, ReadsTheNewestEventsBounded) {
  const std::string sweep = store_->create_sweep(make_sweep("many", 1, 0, 1), "", "", false).sweep.id;
  const std::string job = store_->list_jobs(sweep).at(0).id;
  for (int i = 0; i < 5; ++i) ASSERT_EQ(store_->cancel(sweep, {job}), i == 0 ? 1 : 0) << "a cancelled job stays so";
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(store_->retry(job));
    ASSERT_EQ(store_->cancel(sweep, {job}), 1);
  }
  const auto all = store_->job_events(job, 1000);
  EXPECT_EQ(all.events.size(), 8u);  // submitted, cancelled, then 3 x (retried, cancelled)
  EXPECT_FALSE(all.earlier);
  const auto last = store_->job_events(job, 3);
  ASSERT_EQ(last.events.size(), 3u);
  EXPECT_TRUE(last.earlier);
  EXPECT_EQ(last.events[0].id, all.events[5].id) << "the newest three, oldest first";
  EXPECT_EQ(last.events[2].id, all.events[7].id);
  EXPECT_TRUE(store_->job_events("999", 10).events.empty());
  EXPECT_TRUE(store_->job_events("not an id", 10).events.empty());
}

TEST(JobEventsMigration, AJobFromBeforeTheHistoryHasAnEmptyOneThenRecords) {
  const auto path = temp_db("events-migration");
  {
    sql::Database db(path.string());
    ASSERT_EQ(migrate(db, 6), 6);  // the last version without the history
    db.exec("INSERT INTO sweeps(name, file_name, source_yaml, priority, max_attempts, created_ms) "
            "VALUES ('old', 'old.yaml', '', 0, 3, 0);"
            "INSERT INTO jobs(sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
            "total_steps, created_ms) VALUES (1, 0, 'old/j', 'h', '{}', 'pending', 3, 0, 10, 0)");
  }
  {
    Store store(path.string());  // migrates to the latest version
    const auto job = store.find_job("old/old/j");
    ASSERT_TRUE(job);
    EXPECT_TRUE(store.job_events(job->id, 10).events.empty());
    ASSERT_EQ(store.cancel(job->sweep_id, {job->id}), 1);
    const auto history = store.job_events(job->id, 10).events;
    ASSERT_EQ(history.size(), 1u);
    EXPECT_EQ(history[0].kind, job_event_kind::kCancelled);
  }
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
