// Store::jobs_changed_since: a watch round gets the sweep's jobs written since its last round, and only those
// (server/store/job_changes.cpp); a database from before the numbering counts every job it has as changed. A
// sweep's jobs per state, counted as they change, always equal a count of its jobs.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include "core/metric_names.h"
#include "core/sweep/config_hash.h"
#include "server/coordinator/coordinator.h"
#include "server/schema.h"
#include "server/server_options.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

std::vector<std::string> ids(const Store::JobChanges& changes) {
  std::vector<std::string> out;
  for (const auto& job : changes.jobs) out.push_back(job.id);
  return out;
}

TEST(JobChanges, ARoundGetsTheJobsWrittenSinceTheLastAndNoOthers) {
  const auto path = temp_db("job-changes");
  {
    Store store(path.string());
    const std::string sweep = store.create_sweep(make_sweep("s", 3), "", "", false).sweep.id;
    const std::string other = store.create_sweep(make_sweep("other", 2), "", "", false).sweep.id;
    const auto all = store.jobs_changed_since(sweep, 0);
    const auto jobs = store.list_jobs(sweep);
    ASSERT_EQ(ids(all).size(), 3u);
    for (const auto& job : jobs) EXPECT_NE(std::find(ids(all).begin(), ids(all).end(), job.id), ids(all).end());

    const auto by_name = store.jobs_changed_since("s", 0);  // a name serves as the id, as in find_sweep
    ASSERT_TRUE(by_name.sweep);
    EXPECT_EQ(by_name.sweep->id, sweep);
    EXPECT_EQ(ids(by_name), ids(all));

    const auto quiet = store.jobs_changed_since(sweep, all.seq);
    EXPECT_TRUE(quiet.jobs.empty());
    EXPECT_EQ(quiet.seq, all.seq);

    // A lease, a start and a report of points: the one job, as it is now.
    const std::string worker = store.register_worker("host", 1, {}, "");
    const auto lease = store.lease(worker, 60000);
    ASSERT_TRUE(lease);
    const std::string sweep_of_lease = lease->job.sweep_id;
    const auto leased = store.jobs_changed_since(sweep_of_lease, sweep_of_lease == sweep ? all.seq : 0);
    ASSERT_FALSE(leased.jobs.empty());
    EXPECT_GT(leased.seq, all.seq);
    store.start(worker, lease->job.id, lease->attempt);
    store.add_metrics(lease->job.id, lease->attempt, {{1, 8, std::string(metric_names::kTrainLoss), 3.0}});
    const auto reported = store.jobs_changed_since(sweep_of_lease, leased.seq);
    ASSERT_EQ(ids(reported), std::vector<std::string>{lease->job.id});
    EXPECT_EQ(reported.jobs[0].state, JobState::kRunning);
    EXPECT_EQ(reported.jobs[0].step, 1);

    // Another sweep's changes are not this one's; a cancel of this one's jobs is, each once.
    const std::string watched = sweep_of_lease == sweep ? other : sweep;
    const auto before = store.jobs_changed_since(watched, 0);
    EXPECT_TRUE(store.jobs_changed_since(watched, before.seq).jobs.empty());
    ASSERT_GT(store.cancel(watched, {}), 0);
    const auto cancelled = store.jobs_changed_since(watched, before.seq);
    EXPECT_EQ(cancelled.jobs.size(), before.jobs.size());
    for (const auto& job : cancelled.jobs) EXPECT_EQ(job.state, JobState::kCancelled);
    EXPECT_TRUE(store.jobs_changed_since(watched, cancelled.seq).jobs.empty());
    EXPECT_TRUE(store.jobs_changed_since("999", 0).jobs.empty());
  }
  std::filesystem::remove_all(path.parent_path());
}

TEST(JobChanges, ARunsStateChangeIsAChangeOfItsBranches) {
  const auto path = temp_db("job-changes-branches");
  {
    Store store(path.string());
    Sweep spec = make_sweep("b", 1);
    SweepJob branch = spec.jobs[0];
    branch.name += "/D=1";
    branch.config.steps = 2;
    branch.config_hash = config_hash(branch.config);
    branch.parent = 0;
    branch.branch_step = 1;
    spec.jobs[0].branch_points.push_back(1);
    spec.jobs.push_back(branch);
    const std::string sweep = store.create_sweep(spec, "", "", false).sweep.id;
    const auto start = store.jobs_changed_since(sweep, 0);
    ASSERT_EQ(start.jobs.size(), 2u);
    const std::string worker = store.register_worker("host", 1, {}, "");
    const auto lease = store.lease(worker, 60000);
    ASSERT_TRUE(lease);
    ASSERT_TRUE(lease->job.parent_id.empty());
    const auto changed = store.jobs_changed_since(sweep, start.seq);
    EXPECT_EQ(changed.jobs.size(), 2u) << "the run was leased; its waiting branch's pending reason reads its state";
  }
  std::filesystem::remove_all(path.parent_path());
}

TEST(JobChangesMigration, EveryJobOfAnOlderDatabaseIsAChangeAfterZero) {
  const auto path = temp_db("job-changes-migration");
  {
    sql::Database db(path.string());
    ASSERT_EQ(migrate(db, 15), 15);  // the last version without the numbering
    db.exec("INSERT INTO sweeps(name, file_name, source_yaml, priority, max_attempts, created_ms) "
            "VALUES ('old', 'old.yaml', '', 0, 3, 0);"
            "INSERT INTO jobs(sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
            "total_steps, created_ms) VALUES (1, 0, 'old/a', 'ha', '{}', 'pending', 3, 0, 10, 0), "
            "(1, 1, 'old/b', 'hb', '{}', 'pending', 3, 0, 10, 0)");
  }
  {
    Store store(path.string());  // migrates to the latest version
    const auto all = store.jobs_changed_since("1", 0);
    EXPECT_EQ(all.jobs.size(), 2u);
    EXPECT_TRUE(store.jobs_changed_since("1", all.seq).jobs.empty());
    ASSERT_TRUE(all.sweep);
    EXPECT_EQ(all.sweep->total_jobs, 2) << "the counts per state start from the jobs stored";
    EXPECT_EQ(all.sweep->job_counts.at("pending"), 2);
    ASSERT_EQ(store.cancel("1", {"1"}), 1);
    EXPECT_EQ(ids(store.jobs_changed_since("1", all.seq)), std::vector<std::string>{"1"});
    const auto after = store.find_sweep("1");
    ASSERT_TRUE(after);
    EXPECT_EQ(after->job_counts.at("pending"), 1);
    EXPECT_EQ(after->job_counts.at("cancelled"), 1);
  }
  std::filesystem::remove_all(path.parent_path());
}

// The counts a sweep's row reads are kept by triggers as jobs change state; through a random run of leases,
// starts, outcomes, expiries, cancels and retries they must equal a count of the jobs at every step.
TEST(SweepJobCounts, EqualACountOfTheJobsThroughEveryChangeOfState) {
  const auto path = temp_db("sweep-job-counts");
  {
    Store store(path.string());
    const std::string sweep = store.create_sweep(make_sweep("c", 12), "", "", false).sweep.id;
    const std::string other = store.create_sweep(make_sweep("d", 5), "", "", false).sweep.id;
    const std::string worker = store.register_worker("host", 4, {}, "");
    std::mt19937 random(29);
    std::vector<Lease> held;
    int checked = 0;
    std::set<std::string> states_seen;
    for (int round = 0; round < 300; ++round) {
      switch (random() % 6) {
        case 0:
        case 1:
          if (auto lease = store.lease(worker, 60000, 4)) held.push_back(std::move(*lease));
          break;
        case 2:
          if (!held.empty()) store.start(worker, held.back().job.id, held.back().attempt);
          break;
        case 3:
          if (!held.empty()) {
            const Lease& l = held[random() % held.size()];
            const auto outcome = random() % 2 ? AttemptEnd::kSucceeded : AttemptEnd::kFailed;
            store.finish(worker, l.job.id, l.attempt, outcome, "failed on purpose");
          }
          break;
        case 4: {
          const auto jobs = store.list_jobs(random() % 2 ? sweep : other);
          store.cancel(jobs[random() % jobs.size()].sweep_id, {jobs[random() % jobs.size()].id});
          break;
        }
        case 5: {
          const auto jobs = store.list_jobs(sweep);
          store.retry(jobs[random() % jobs.size()].id);
          break;
        }
      }
      for (const std::string& id : {sweep, other}) {
        std::map<std::string, int> counted;
        for (const auto& job : store.list_jobs(id)) ++counted[std::string(job_state_name(job.state))];
        const auto row = store.find_sweep(id);
        ASSERT_TRUE(row);
        const std::map<std::string, int> kept = row->job_counts;
        ASSERT_EQ(kept, counted) << "round " << round << ", sweep " << id;
        for (const auto& [state, n] : kept) states_seen.insert(state);
        ++checked;
      }
    }
    EXPECT_EQ(checked, 600);
    EXPECT_GE(states_seen.size(), 5u) << "the run went through most states";
  }
  std::filesystem::remove_all(path.parent_path());
}

// A watcher is sent every job in its first round, then only those written since its last round: none when
// nothing changed, the one that a report changed.
TEST(WatchRound, SendsOnlyTheJobsWrittenSinceTheWatchersLastRound) {
  const auto path = temp_db("watch-round");
  {
    Store store(path.string());
    const ServerOptions options;
    coordinator::Coordinator app(store, options);
    const std::string sweep = store.create_sweep(make_sweep("w", 4), "", "", false).sweep.id;
    coordinator::WatchMemory memory;
    auto first = app.watch_round(sweep, memory);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(first->jobs.size(), 4u);
    EXPECT_EQ(first->sweep.total_jobs, 4);
    std::vector<std::string> listed, sent;
    for (const auto& job : store.list_jobs(sweep)) listed.push_back(job.id);
    for (const auto& job : first->jobs) sent.push_back(job.id);
    EXPECT_EQ(sent, listed) << "in the sweep's order, as a whole list is";
    for (const auto& job : first->jobs) EXPECT_TRUE(job.config_json.empty()) << "an update carries no config";
    auto quiet = app.watch_round(sweep, memory);
    ASSERT_TRUE(quiet.ok());
    EXPECT_TRUE(quiet->jobs.empty());

    const std::string worker = store.register_worker("host", 1, {}, "");
    const auto lease = store.lease(worker, 60000);
    ASSERT_TRUE(lease);
    store.start(worker, lease->job.id, lease->attempt);
    store.add_metrics(lease->job.id, lease->attempt, {{3, 24, std::string(metric_names::kTrainLoss), 2.5}});
    auto reported = app.watch_round(sweep, memory);
    ASSERT_TRUE(reported.ok());
    ASSERT_EQ(reported->jobs.size(), 1u);
    EXPECT_EQ(reported->jobs[0].id, lease->job.id);
    EXPECT_EQ(reported->jobs[0].step, 3);
    EXPECT_EQ(reported->sweep.job_counts.at("running"), 1);
    EXPECT_EQ(reported->sweep.job_counts.at("pending"), 3);

    coordinator::WatchMemory another;
    EXPECT_EQ(app.watch_round(sweep, another)->jobs.size(), 4u) << "each watcher has its own memory";
    EXPECT_EQ(app.watch_round("987", memory).status().code(), absl::StatusCode::kNotFound);
  }
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
