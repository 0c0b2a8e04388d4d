// The coordinator's store on a real SQLite file: job state machine, leases, idempotent metrics, reuse.
#include "core/limits.h"
#include "core/sweep/config_hash.h"
#include "core/uid.h"
#include "server/schema.h"
#include "server/store.h"
#include "server/tokens.h"

#include <chrono>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "server/lease_reaper.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

class StoreTest : public ::testing::Test {
 protected:
  std::filesystem::path path_ = temp_db("store");
  std::unique_ptr<Store> store_ = std::make_unique<Store>(path_.string());
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(path_.parent_path());
  }
  std::string worker() { return store_->register_worker("host", 1, {}, ""); }
  // A column the job record does not carry, read from the file.
  std::int64_t column_of_job(const std::string& column, const std::string& job_id) {
    sql::Database db(path_.string());
    sql::Statement s(db.handle(), "SELECT " + column + " FROM jobs WHERE id = " + job_id);
    return s.step() ? s.int64(0) : -1;
  }
};

TEST_F(StoreTest, SubmitCreatesPendingJobsInOrder) {
  auto result = store_->create_sweep(make_sweep("a", 3), "yaml", "a.yaml", false);
  EXPECT_EQ(result.jobs_created, 3);
  EXPECT_EQ(result.sweep.total_jobs, 3);
  EXPECT_FALSE(result.sweep.finished);
  auto jobs = store_->list_jobs(result.sweep.id);
  ASSERT_EQ(jobs.size(), 3u);
  for (const auto& j : jobs) EXPECT_EQ(j.state, JobState::kPending);
  EXPECT_EQ(jobs[0].name, "a/job0");
  EXPECT_EQ(store_->find_sweep("a")->id, result.sweep.id);
  EXPECT_EQ(store_->find_job("a/a/job1")->id, jobs[1].id);
}

TEST_F(StoreTest, LeaseRunFinishSucceeds) {
  auto sweep = store_->create_sweep(make_sweep("a", 1), "", "", false).sweep;
  const std::string w = worker();
  auto lease = store_->lease(w, 10000);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->attempt, 1);
  EXPECT_EQ(lease->job.state, JobState::kLeased);
  EXPECT_FALSE(store_->lease(w, 10000)) << "no second pending job";
  EXPECT_FALSE(store_->start(w, lease->job.id, 2)) << "wrong attempt is stale";
  EXPECT_TRUE(store_->start(w, lease->job.id, 1));
  store_->add_metrics(lease->job.id, 1, {{5, 50, "train/loss", 2.5}});
  EXPECT_EQ(store_->find_job(lease->job.id)->state, JobState::kRunning);
  EXPECT_DOUBLE_EQ(store_->find_job(lease->job.id)->last_loss.value(), 2.5);
  EXPECT_FALSE(store_->finish(w, lease->job.id, 2, AttemptEnd::kSucceeded, "")) << "wrong attempt is stale";
  EXPECT_TRUE(store_->finish(w, lease->job.id, 1, AttemptEnd::kSucceeded, ""));
  EXPECT_EQ(store_->find_job(lease->job.id)->state, JobState::kSucceeded);
  EXPECT_TRUE(store_->find_sweep(sweep.id)->finished);
}

TEST_F(StoreTest, MetricsAreIdempotentPerJobNameStep) {
  store_->create_sweep(make_sweep("a", 1), "", "", false);
  auto lease = store_->lease(worker(), 10000);
  std::vector<MetricPoint> points = {{1, 10, "train/loss", 3.0}, {2, 20, "train/loss", 2.0}, {2, 20, "lr", 0.1}};
  EXPECT_EQ(store_->add_metrics(lease->job.id, 1, points).stored, 3);
  // A resend after a reconnect, and a resumed run repeating step 2 with one new step.
  EXPECT_EQ(store_->add_metrics(lease->job.id, 1, points).stored, 0);
  EXPECT_EQ(store_->add_metrics(lease->job.id, 1, {{2, 20, "train/loss", 2.0}, {3, 30, "train/loss", 1.5}}).stored,
            1);
  auto loss = store_->metrics(lease->job.id, {"train/loss"});
  ASSERT_EQ(loss.size(), 3u);
  EXPECT_EQ(loss[0].step, 1);
  EXPECT_EQ(loss[2].step, 3);
  EXPECT_DOUBLE_EQ(loss[2].value, 1.5);
  EXPECT_EQ(store_->add_metrics(lease->job.id, 1, {{4, 40, "x", NAN}}).stored, 1);
  EXPECT_TRUE(std::isnan(store_->metrics(lease->job.id, {"x"}).at(0).value)) << "NaN is stored and read back";
}

// A final loss reads the end of each loss curve, never the whole of it (a long run has 100,000 points).
TEST_F(StoreTest, LossTailsAreTheLastPointsOfEachLossCurveInStepOrder) {
  Sweep sweep = make_sweep("a", 1);
  sweep.jobs[0].config.steps = 100;
  sweep.jobs[0].config_hash = config_hash(sweep.jobs[0].config);
  store_->create_sweep(sweep, "", "", false);
  auto lease = store_->lease(worker(), 10000);
  std::vector<MetricPoint> points;
  for (std::int64_t step = 1; step <= 100; ++step) {
    points.push_back({step, step * 10, "train/loss", 5.0 - 0.01 * static_cast<double>(step)});
    if (step % 20 == 0) points.push_back({step, step * 10, "val/loss", 6.0 - 0.01 * static_cast<double>(step)});
    points.push_back({step, step * 10, "lr", 0.1});
  }
  ASSERT_EQ(store_->add_metrics(lease->job.id, 1, points).stored, 205);
  const JobLosses tails = store_->loss_tails(lease->job.id);
  EXPECT_EQ(tails.job_id, lease->job.id);
  ASSERT_EQ(tails.train_loss.size(), static_cast<std::size_t>(Store::kLossTail));
  EXPECT_EQ(tails.train_loss.front().step, 100 - Store::kLossTail + 1);
  EXPECT_EQ(tails.train_loss.back().step, 100);
  EXPECT_EQ(tails.train_loss.back().tokens, 1000);
  EXPECT_DOUBLE_EQ(tails.train_loss.back().value, 4.0);
  ASSERT_EQ(tails.val_loss.size(), 5u) << "a curve shorter than the tail comes whole";
  EXPECT_EQ(tails.val_loss.front().step, 20);
  EXPECT_EQ(tails.val_loss.back().step, 100);
  EXPECT_DOUBLE_EQ(tails.val_loss.back().value, 5.0);
}

TEST_F(StoreTest, ExpiredLeaseRequeuesThenFailsAfterMaxAttempts) {
  store_->create_sweep(make_sweep("a", 1, 0, 2), "", "", false);
  const std::string w = worker();
  auto first = store_->lease(w, -1);  // already expired
  ASSERT_TRUE(first);
  EXPECT_EQ(store_->expire_leases(), 1);
  auto job = store_->find_job(first->job.id);
  EXPECT_EQ(job->state, JobState::kPending);
  auto second = store_->lease(w, -1);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->attempt, 2);
  EXPECT_EQ(store_->expire_leases(), 1);
  job = store_->find_job(first->job.id);
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_NE(job->error.find("lease expired on attempt 2 of 2"), std::string::npos) << job->error;
  // A late report of the lost attempt changes nothing.
  EXPECT_FALSE(store_->finish(w, first->job.id, 2, AttemptEnd::kSucceeded, ""));
}

TEST_F(StoreTest, AStartingCoordinatorGivesLeasesThatRanOutWhileItWasDownOneTimeout) {
  store_->create_sweep(make_sweep("a", 2, 0, 2), "", "", false);
  const std::string w = worker();
  auto lease = store_->lease(w, -1);  // ran out while the coordinator was down
  ASSERT_TRUE(lease);
  {
    LeaseReaper reaper(*store_, /*lease_timeout_ms=*/60000, /*heartbeat_interval_ms=*/5000);  // the server's defaults
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // its first pass has run
    EXPECT_EQ(store_->find_job(lease->job.id)->state, JobState::kLeased) << "not requeued at start-up";
    const HeartbeatResult beat = store_->heartbeat(w, {{lease->job.id, lease->attempt}}, false, 60000);
    EXPECT_TRUE(beat.lost_job_ids.empty()) << "the worker's heartbeat renews it";
  }
  EXPECT_EQ(store_->expire_leases(), 0);
  EXPECT_EQ(store_->find_job(lease->job.id)->attempt, 1) << "no attempt used";
  EXPECT_EQ(store_->grant_lease_grace(1000), 1) << "only the active lease, not the pending job";
}

// The grace is a lease timeout, but never less than a worker's reconnection plus the margin.
TEST_F(StoreTest, TheRestartGraceCoversAWorkersReconnectionWhateverTheLease) {
  EXPECT_EQ(restart_grace_ms(60000, 5000), 60000);
  EXPECT_EQ(restart_grace_ms(3000, 200), limits::kWorkerMaxReconnectBackoffMs + 400 + kRestartGraceMarginMs);
  EXPECT_GE(restart_grace_ms(1000, 100), 15000);
}

TEST_F(StoreTest, ListedSweepsCarryNoSourceWhichFindingOneDoes) {
  const std::string big(500000, '#');  // a long comment: the file is stored whole
  store_->create_sweep(make_sweep("a", 1), big, "a.yaml", false);
  store_->create_sweep(make_sweep("b", 1), big, "b.yaml", false);
  const auto listed = store_->list_sweeps();
  ASSERT_EQ(listed.size(), 2u);
  for (const auto& sweep : listed) EXPECT_TRUE(sweep.source_yaml.empty()) << sweep.name;
  EXPECT_EQ(store_->find_sweep("a")->source_yaml, big);
}

TEST_F(StoreTest, FailureRetriesUntilMaxAttempts) {
  store_->create_sweep(make_sweep("a", 1, 0, 2), "", "", false);
  const std::string w = worker();
  auto lease = store_->lease(w, 10000);
  EXPECT_TRUE(store_->finish(w, lease->job.id, 1, AttemptEnd::kFailed, "exit 1"));
  EXPECT_EQ(store_->find_job(lease->job.id)->state, JobState::kPending);
  lease = store_->lease(w, 10000);
  EXPECT_TRUE(store_->finish(w, lease->job.id, 2, AttemptEnd::kFailed, "exit 1 again"));
  auto job = store_->find_job(lease->job.id);
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_EQ(job->error, "exit 1 again");
  auto retried = store_->retry(job->id);
  ASSERT_TRUE(retried);
  EXPECT_EQ(retried->state, JobState::kPending);
  EXPECT_EQ(retried->attempt, 0);
}

TEST_F(StoreTest, HandBackDoesNotUseAnAttempt) {
  store_->create_sweep(make_sweep("a", 1, 0, 1), "", "", false);
  const std::string w = worker();
  auto lease = store_->lease(w, 10000);
  EXPECT_TRUE(store_->finish(w, lease->job.id, 1, AttemptEnd::kHandedBack, ""));
  auto job = store_->find_job(lease->job.id);
  EXPECT_EQ(job->state, JobState::kPending);
  EXPECT_EQ(job->attempt, 0);
}

// Hand-backs use no attempt, but not for ever: a worker that hands a job back over and over (or a trainer that
// keeps exiting 75) ends it by its attempts.
TEST_F(StoreTest, HandBacksAreBoundedApartFromAttempts) {
  store_->create_sweep(make_sweep("a", 1, 0, 1), "", "", false);
  const std::string w = worker();
  std::string id;
  for (std::int64_t i = 0; i < Store::kMaxHandBacks; ++i) {
    auto lease = store_->lease(w, 10000);
    ASSERT_TRUE(lease) << "hand-back " << i;
    id = lease->job.id;
    ASSERT_TRUE(store_->finish(w, id, lease->attempt, AttemptEnd::kHandedBack, ""));
    ASSERT_EQ(store_->find_job(id)->state, JobState::kPending);
    ASSERT_EQ(store_->find_job(id)->attempt, 0);
  }
  auto lease = store_->lease(w, 10000);
  ASSERT_TRUE(lease);
  ASSERT_TRUE(store_->finish(w, id, lease->attempt, AttemptEnd::kHandedBack, ""));
  const auto job = store_->find_job(id);
  EXPECT_EQ(job->state, JobState::kFailed) << "its one attempt was used by the hand-back past the bound";
  EXPECT_NE(job->error.find("handed back 21 times (more than 20): this one uses an attempt"), std::string::npos)
      << job->error;
}

// A failure the worker's own environment may cause (its --data-dir, its device's memory) uses no attempt and
// pauses that worker; the job fails only once kMaxWorkerFaults workers failed it alike.
TEST_F(StoreTest, AWorkersFaultPausesItAndTheJobFailsOnlyAfterSeveralWorkersFailedIt) {
  store_->create_sweep(make_sweep("a", 1, 0, 1), "", "", false);
  std::vector<std::string> workers;
  for (int i = 0; i < 4; ++i) workers.push_back(worker());
  std::string id;
  for (std::int64_t i = 0; i + 1 < Store::kMaxWorkerFaults; ++i) {
    auto lease = store_->lease(workers[i], 10000);
    ASSERT_TRUE(lease) << "worker " << i;
    id = lease->job.id;
    ASSERT_TRUE(store_->finish(workers[i], id, lease->attempt, AttemptEnd::kWorkerFault, "data.train: not found"));
    const auto job = store_->find_job(id);
    EXPECT_EQ(job->state, JobState::kPending);
    EXPECT_EQ(job->attempt, 0) << "a worker's fault used the job's only attempt";
    EXPECT_FALSE(store_->lease(workers[i], 10000)) << "a paused worker got a lease";
  }
  auto lease = store_->lease(workers[Store::kMaxWorkerFaults - 1], 10000);
  ASSERT_TRUE(lease);
  ASSERT_TRUE(store_->finish(workers[Store::kMaxWorkerFaults - 1], id, lease->attempt, AttemptEnd::kWorkerFault,
                             "data.train: not found"));
  const auto job = store_->find_job(id);
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_EQ(job->error, "failed alike on 3 workers, so the job is at fault: data.train: not found");
  // A config error is the job's alone: one attempt, as before.
  store_->create_sweep(make_sweep("b", 1, 0, 3), "", "", false);
  auto other = store_->lease(workers[3], 10000);
  ASSERT_TRUE(other);
  ASSERT_TRUE(store_->finish(workers[3], other->job.id, other->attempt, AttemptEnd::kFailedPermanently, "bad"));
  EXPECT_EQ(store_->find_job(other->job.id)->state, JobState::kFailed);
  store_->create_sweep(make_sweep("c", 1), "", "", false);
  EXPECT_TRUE(store_->lease(workers[3], 10000)) << "a config error paused the worker that reported it";
}

// A worker that failed a job in a way its environment may cause never gets that job again, however often its
// pause lapses: one bad worker cannot use up the job's bound on its own. It still gets other jobs, and a retry
// gives the job back to every worker with its bounds afresh.
TEST_F(StoreTest, OneBadWorkerCannotFailAJobOnItsOwnHoweverOftenItsPauseLapses) {
  store_->create_sweep(make_sweep("a", 1, 0, 1), "", "", false);
  const std::string bad = worker(), good = worker();
  auto lease = store_->lease(bad, 10000);
  ASSERT_TRUE(lease);
  const std::string id = lease->job.id;
  for (int round = 0; round < 2 * Store::kMaxWorkerFaults; ++round) {
    if (lease) {
      ASSERT_TRUE(store_->finish(bad, id, lease->attempt, AttemptEnd::kWorkerFault, "data.train: not found"));
    }
    ASSERT_EQ(store_->find_job(id)->state, JobState::kPending) << "round " << round;
    sql::Database(path_.string()).exec("UPDATE workers SET paused_until_ms = 0");  // its pause lapsed
    lease = store_->lease(bad, 10000);
    EXPECT_FALSE(lease) << "round " << round << ": the job went back to the worker it failed on";
  }
  EXPECT_EQ(column_of_job("worker_faults", id), 1);
  store_->create_sweep(make_sweep("b", 1), "", "", false);
  auto other = store_->lease(bad, 10000);
  ASSERT_TRUE(other) << "the worker is kept from the one job, not from all work";
  EXPECT_NE(other->job.id, id);
  // The good worker fails it alike; with no worker left to try it on, the job fails.
  lease = store_->lease(good, 10000);
  ASSERT_TRUE(lease);
  ASSERT_EQ(lease->job.id, id);
  ASSERT_TRUE(store_->finish(good, id, lease->attempt, AttemptEnd::kWorkerFault, "data.train: not found"));
  EXPECT_EQ(store_->find_job(id)->state, JobState::kFailed);
  EXPECT_EQ(store_->find_job(id)->error, "no other worker to try it on: data.train: not found");
  // A retry: every worker may take it again, and its counts start afresh.
  ASSERT_TRUE(store_->retry(id));
  EXPECT_EQ(column_of_job("worker_faults", id), 0);
  EXPECT_EQ(column_of_job("hand_backs", id), 0);
  sql::Database(path_.string()).exec("UPDATE workers SET paused_until_ms = 0");
  ASSERT_TRUE(store_->finish(bad, other->job.id, other->attempt, AttemptEnd::kSucceeded, ""));
  lease = store_->lease(bad, 10000);
  ASSERT_TRUE(lease) << "a retried job is still kept from the worker it failed on";
  EXPECT_EQ(lease->job.id, id);
}

// With no other worker to try it on, a worker's fault fails the job at once and pauses nobody: a one-worker
// cluster goes on with its other jobs.
TEST_F(StoreTest, AWorkersFaultWithNoOtherWorkerFailsTheJobAndPausesNobody) {
  store_->create_sweep(make_sweep("a", 2, 0, 3), "", "", false);
  const std::string w = worker();
  auto lease = store_->lease(w, 10000);
  ASSERT_TRUE(lease);
  ASSERT_TRUE(store_->finish(w, lease->job.id, lease->attempt, AttemptEnd::kWorkerFault, "data.train: not found"));
  const auto job = store_->find_job(lease->job.id);
  EXPECT_EQ(job->state, JobState::kFailed);
  EXPECT_EQ(job->error, "no other worker to try it on: data.train: not found");
  EXPECT_EQ(job->attempt, 1);
  EXPECT_TRUE(store_->lease(w, 10000)) << "the only worker was paused";
}

// Every job has a uid of its own, minted at submit, never reused and never changed (core/uid.h); the database
// has one too, kept across reopening.
TEST_F(StoreTest, JobsAndTheDatabaseHaveUidsThatNeverComeRoundAgain) {
  const auto sweep = store_->create_sweep(make_sweep("a", 3), "", "", false).sweep;
  std::set<std::string> uids;
  for (const auto& job : store_->list_jobs(sweep.id)) {
    EXPECT_TRUE(is_uid(job.uid)) << job.uid;
    uids.insert(job.uid);
    EXPECT_EQ(store_->find_job(job.id)->uid, job.uid);
  }
  EXPECT_EQ(uids.size(), 3u);
  const std::string database = store_->database_uid();
  EXPECT_TRUE(is_uid(database));
  store_.reset();
  store_ = std::make_unique<Store>(path_.string());
  EXPECT_EQ(store_->database_uid(), database);
  const auto again = store_->create_sweep(make_sweep("b", 3), "", "", false).sweep;
  for (const auto& job : store_->list_jobs(again.id)) EXPECT_FALSE(uids.count(job.uid)) << job.uid;
}

TEST_F(StoreTest, CancelPendingNowAndRunningThroughHeartbeat) {
  auto sweep = store_->create_sweep(make_sweep("a", 3), "", "", false).sweep;
  const std::string w = worker();
  auto running = store_->lease(w, 10000);
  EXPECT_EQ(store_->cancel(sweep.id, {}), 3);
  auto jobs = store_->list_jobs(sweep.id);
  EXPECT_EQ(jobs[1].state, JobState::kCancelled);
  EXPECT_EQ(jobs[2].state, JobState::kCancelled);
  EXPECT_EQ(jobs[0].state, JobState::kLeased) << "a running job stops through its worker";
  auto hb = store_->heartbeat(w, {{running->job.id, 1}}, false, 10000);
  ASSERT_EQ(hb.cancel_job_ids.size(), 1u);
  EXPECT_EQ(hb.cancel_job_ids[0], running->job.id);
  EXPECT_TRUE(store_->finish(w, running->job.id, 1, AttemptEnd::kCancelled, ""));
  EXPECT_EQ(store_->find_job(running->job.id)->state, JobState::kCancelled);
  EXPECT_FALSE(store_->lease(w, 10000)) << "cancelled jobs never start";
}

TEST_F(StoreTest, HeartbeatReportsLostLeasesAndUnknownWorkers) {
  store_->create_sweep(make_sweep("a", 1), "", "", false);
  const std::string w = worker();
  auto lease = store_->lease(w, -1);
  store_->expire_leases();
  auto hb = store_->heartbeat(w, {{lease->job.id, 1}}, false, 10000);
  EXPECT_TRUE(hb.known);
  ASSERT_EQ(hb.lost_job_ids.size(), 1u);
  EXPECT_FALSE(store_->heartbeat("999", {}, false, 10000).known);
}

TEST_F(StoreTest, ResubmittedConfigsReuseFinishedJobsUnlessRerun) {
  store_->create_sweep(make_sweep("a", 2), "", "", false);
  const std::string w = worker();
  auto lease = store_->lease(w, 10000);
  store_->add_metrics(lease->job.id, 1, {{10, 100, "train/loss", 1.25}});
  store_->finish(w, lease->job.id, 1, AttemptEnd::kSucceeded, "");
  auto again = store_->create_sweep(make_sweep("a", 2), "", "", false);
  EXPECT_EQ(again.jobs_reused, 1);
  EXPECT_EQ(again.jobs_created, 1);
  auto jobs = store_->list_jobs(again.sweep.id);
  EXPECT_EQ(jobs[0].state, JobState::kSucceeded);
  EXPECT_EQ(jobs[0].reused_from, lease->job.id);
  EXPECT_DOUBLE_EQ(store_->metrics(jobs[0].id, {"train/loss"}).at(0).value, 1.25);
  auto rerun = store_->create_sweep(make_sweep("a", 2), "", "", true);
  EXPECT_EQ(rerun.jobs_reused, 0);
  EXPECT_EQ(rerun.jobs_created, 2);
}

TEST_F(StoreTest, PriorityFirstThenRoundRobinAcrossSweeps) {
  auto big = store_->create_sweep(make_sweep("big", 6), "", "", false).sweep;
  auto small = store_->create_sweep(make_sweep("small", 2), "", "", false).sweep;
  auto urgent = store_->create_sweep(make_sweep("urgent", 1, 5), "", "", false).sweep;
  const std::string w = worker();
  std::vector<std::string> order;
  while (auto lease = store_->lease(w, 10000)) order.push_back(lease->job.sweep_id);
  ASSERT_EQ(order.size(), 9u);
  EXPECT_EQ(order[0], urgent.id);
  // The small sweep is not starved behind the big one: they alternate.
  EXPECT_EQ(order[1], big.id);
  EXPECT_EQ(order[2], small.id);
  EXPECT_EQ(order[3], big.id);
  EXPECT_EQ(order[4], small.id);
}

TEST_F(StoreTest, SurvivesReopenAtTheLatestSchemaVersion) {
  auto sweep = store_->create_sweep(make_sweep("a", 2), "", "", false).sweep;
  store_.reset();
  store_ = std::make_unique<Store>(path_.string());
  EXPECT_EQ(store_->list_jobs(sweep.id).size(), 2u);
  sql::Database db(path_.string());
  sql::Statement s(db.handle(), "SELECT MAX(version) FROM schema_version");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.int64(0), latest_schema_version());
}

// Migration 9 rebuilds the tokens table (a third role): its rows survive, a worker's reference to its token
// still points at the tokens table, and the new role can be stored.
TEST(SchemaMigration, TheTokensTableIsRebuiltForTheMetricsRoleKeepingTokensAndTheirWorkers) {
  const auto path = temp_db("migration-9");
  {
    sql::Database db(path.string());
    ASSERT_EQ(migrate(db, 8), 8);
    db.exec("INSERT INTO tokens(id, name, role, salt, hash, created_ms) VALUES (7, 'rack', 'worker', 'aa', 'bb', 1)");
    db.exec("INSERT INTO workers(id, hostname, slots, gpus, registered_ms, heartbeat_ms, token_id) "
            "VALUES (3, 'host', 1, '', 1, 1, 7)");
  }
  Tokens tokens(path.string());  // migrates to the latest version
  const std::string scraper = tokens.create(Role::kMetrics, "prometheus");
  ASSERT_TRUE(tokens.verify(scraper));
  EXPECT_EQ(tokens.verify(scraper)->role, Role::kMetrics);
  const std::vector<TokenInfo> listed = tokens.list();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].id, 7);
  EXPECT_EQ(listed[0].name, "rack");
  EXPECT_EQ(listed[0].role, Role::kWorker);
  sql::Database db(path.string());
  sql::Statement target(db.handle(), "SELECT \"table\" FROM pragma_foreign_key_list('workers') WHERE \"from\" = 'token_id'");
  ASSERT_TRUE(target.step());
  EXPECT_EQ(target.text(0), "tokens");
  target.reset();
  sql::Statement violations(db.handle(), "SELECT COUNT(*) FROM pragma_foreign_key_check");
  ASSERT_TRUE(violations.step());
  EXPECT_EQ(violations.int64(0), 0);
  violations.reset();
  sql::Statement left(db.handle(), "SELECT COUNT(*) FROM sqlite_schema WHERE name = 'tokens_9'");
  ASSERT_TRUE(left.step());
  EXPECT_EQ(left.int64(0), 0);
  left.reset();
  std::filesystem::remove_all(path.parent_path());
}

TEST(SchemaMigration, OldDatabaseIsMigratedForwardKeepingItsData) {
  const auto path = temp_db("migration");
  {
    sql::Database db(path.string());
    ASSERT_EQ(migrate(db, 1), 1);
    db.exec("INSERT INTO sweeps(name, file_name, source_yaml, priority, max_attempts, created_ms) "
            "VALUES ('old', 'old.yaml', '', 0, 3, 0)");
  }
  Store store(path.string());  // opening migrates to the latest version
  ASSERT_TRUE(store.find_sweep("old"));
  EXPECT_TRUE(store.fits(store.find_sweep("old")->id, false).empty()) << "tables of later migrations exist";
  sql::Database db(path.string());
  sql::Statement s(db.handle(), "SELECT COUNT(*), MAX(version) FROM schema_version");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.int64(1), latest_schema_version());
  EXPECT_EQ(s.int64(0), latest_schema_version()) << "one row per applied migration";
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
