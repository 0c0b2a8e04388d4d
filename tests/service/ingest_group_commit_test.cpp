// Metric reports from many threads at once, written in groups (server/store/group_commit.h) on a real SQLite
// file: every point is stored exactly once, whoever sends it and however often, with the tiles, tails and job
// row it implies; and a report refused or failing inside a group stores nothing while the others of its group
// are stored whole.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/metric_downsample.h"
#include "core/metric_names.h"
#include "server/sqlite.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

const std::string kTrain(metric_names::kTrainLoss);

// Steps first..last of train/loss.
std::vector<MetricPoint> train_points(std::int64_t first, std::int64_t last) {
  std::vector<MetricPoint> out;
  for (std::int64_t s = first; s <= last; ++s) out.push_back({s, s * 1000, kTrain, 5.0 / double(s)});
  return out;
}

std::int64_t count_of(Store& store, const std::string& sql) {
  std::int64_t n = -1;
  store.with_connection([&](sqlite3* db) {
    sqlite3_stmt* s = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql;
    if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  });
  return n;
}

// A store with `jobs` jobs of `steps` steps, each leased by a worker and started (ingest is fenced by attempt).
class IngestGroups : public ::testing::Test {
 protected:
  void hold_jobs(int jobs, std::int64_t steps) {
    Sweep sweep = make_sweep("groups", jobs);
    for (auto& job : sweep.jobs) job.config.steps = steps;
    store_.create_sweep(sweep, "", "", false);
    const std::string worker = store_.register_worker("host", jobs, {}, "");
    for (int j = 0; j < jobs; ++j) {
      auto lease = store_.lease(worker, 600'000);
      ASSERT_TRUE(lease);
      ASSERT_TRUE(store_.start(worker, lease->job.id, lease->attempt));
      attempts_[lease->job.id] = lease->attempt;
    }
  }

  IngestResult report(const std::string& job, const std::vector<MetricPoint>& points,
                      const std::function<bool(std::size_t)>& admit = [](std::size_t) { return true; }) {
    IngestFence fence;
    fence.admit = admit;
    return store_.add_metrics(job, attempts_.at(job), points, &fence);
  }

  void TearDown() override { std::filesystem::remove_all(path_.parent_path()); }

  const std::filesystem::path path_ = temp_db("ingest-groups");
  Store store_{path_.string()};
  std::map<std::string, int> attempts_;  // job id -> the attempt that holds it
};

TEST_F(IngestGroups, ConcurrentReportersAndTheirResendsStoreEveryPointExactlyOnce) {
  constexpr int kJobs = 12, kReportersPerJob = 3, kReports = 40, kPoints = 25;
  constexpr std::int64_t kSteps = std::int64_t{kReports} * kPoints;
  hold_jobs(kJobs, kSteps);
  // Every reporter of a job sends the job's whole curve, report by report, as a relay resending after a lost
  // answer does: each point reaches the store up to three times, from threads racing each other.
  std::map<std::string, std::atomic<std::int64_t>> stored;
  for (const auto& [job, attempt] : attempts_) stored[job] = 0;
  std::atomic<int> refused{0};
  std::vector<std::thread> reporters;
  for (const auto& [job_id, attempt] : attempts_) {
    for (int r = 0; r < kReportersPerJob; ++r) {
      reporters.emplace_back([&, job = job_id] {
        for (int m = 0; m < kReports; ++m) {
          const IngestResult result = report(job, train_points(1 + std::int64_t{m} * kPoints, (m + 1) * kPoints));
          if (result.refusal != IngestResult::Refusal::kNone) ++refused;
          stored.at(job) += result.stored;
        }
      });
    }
  }
  for (auto& t : reporters) t.join();
  EXPECT_EQ(refused.load(), 0);
  for (const auto& [job, attempt] : attempts_) {
    SCOPED_TRACE("job " + job);
    EXPECT_EQ(stored.at(job).load(), kSteps);  // each point counted stored once, by one of its senders
    const std::vector<MetricPoint> points = store_.metrics(job, {kTrain});
    ASSERT_EQ(points.size(), std::size_t(kSteps));
    for (std::size_t i = 0; i < points.size(); ++i) EXPECT_EQ(points[i].step, std::int64_t(i) + 1);
    // The tiles were merged once per stored point: the downsampled curve is the reference's of the points.
    for (const std::size_t buckets : {1, 7, 100}) {
      const auto from_tiles = store_.downsampled_metrics(job, {kTrain}, -1, kSteps, buckets);
      const auto reference = downsample(points, buckets);
      ASSERT_EQ(from_tiles.size(), reference.size()) << buckets << " buckets";
      for (std::size_t i = 0; i < reference.size(); ++i) EXPECT_EQ(from_tiles[i].step, reference[i].step);
    }
    const JobLosses tails = store_.loss_tails(job);
    ASSERT_EQ(tails.train_loss.size(), std::size_t(Store::kLossTail));
    EXPECT_EQ(tails.train_loss.back().step, kSteps);
    EXPECT_EQ(count_of(store_, "SELECT step FROM jobs WHERE id = " + job), kSteps);
  }
  EXPECT_EQ(count_of(store_, "SELECT COUNT(*) FROM metrics"), kJobs * kSteps);
  EXPECT_EQ(count_of(store_, "SELECT SUM(points) FROM metric_tiles WHERE level = 6"), kJobs * kSteps);
}

TEST_F(IngestGroups, AReportRefusedOrFailingInAGroupStoresNothingAndTheOthersAreStoredWhole) {
  hold_jobs(5, 5000);
  // A write that fails half-way through a report: the writer's connection refuses step 777 of any job.
  store_.with_connection([](sqlite3* db) {
    ASSERT_EQ(sqlite3_exec(db,
                           "CREATE TEMP TRIGGER fail_step_777 BEFORE INSERT ON main.metrics WHEN NEW.step = 777 "
                           "BEGIN SELECT RAISE(ABORT, 'disk on fire'); END",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
  });
  // Each job has steps 1..100 stored.
  for (const auto& [job, attempt] : attempts_) ASSERT_EQ(report(job, train_points(1, 100)).stored, 100);
  const std::int64_t names_before = count_of(store_, "SELECT COUNT(*) FROM metric_names");

  // Job 1's report holds the writer (its admit waits) until the others have queued behind it: they are then
  // written as one group, by one of their threads. Retried with fresh steps in the rare case that a thread was
  // not scheduled in time to queue.
  bool grouped = false;
  for (int round = 0; round < 5 && !grouped; ++round) {
    std::mutex seen_mutex;
    std::set<std::thread::id> admitted_on;  // the threads the queued reports were admitted on
    auto note = [&](std::size_t) {
      std::lock_guard lock(seen_mutex);
      admitted_on.insert(std::this_thread::get_id());
      return true;
    };
    std::atomic<bool> release{false};
    std::thread holder([&] {
      report("1", {{100, 100'000, "holder/probe", 1.0}}, [&](std::size_t) {
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return true;
      });
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the holder is the group being written
    const std::int64_t base = 100 + std::int64_t{round} * 200;  // job 2 moves on each round
    IngestResult good_2, good_5, backwards, beyond;
    std::exception_ptr failed;
    std::vector<std::thread> group;
    group.emplace_back([&] { good_2 = report("2", train_points(base + 1, base + 150), note); });
    // Steps forward, then one back: refused whole, its new metric name too.
    group.emplace_back([&] {
      std::vector<MetricPoint> points = train_points(base + 1, base + 20);
      points.push_back({base + 21, 0, "only/in/refused", 1.0});
      points.push_back({base + 5, 0, kTrain, 1.0});
      backwards = report("3", points, note);
    });
    // Its first points are written before step 777 fails: all of it is undone, its new name forgotten.
    group.emplace_back([&] {
      try {
        std::vector<MetricPoint> points = train_points(101, 776);
        points.push_back({101, 0, "only/in/failed", 1.0});
        for (const MetricPoint& p : train_points(777, 790)) points.push_back(p);
        report("4", points, note);
      } catch (const std::exception&) {
        failed = std::current_exception();
      }
    });
    group.emplace_back([&] { beyond = report("5", train_points(4990, 5001), note); });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // all four queued behind the holder
    release = true;
    holder.join();
    for (auto& t : group) t.join();
    grouped = admitted_on.size() == 1;

    EXPECT_EQ(good_2.refusal, IngestResult::Refusal::kNone) << good_2.reason;
    EXPECT_EQ(good_2.stored, 150);
    EXPECT_EQ(backwards.refusal, IngestResult::Refusal::kStepBackwards);
    EXPECT_NE(backwards.reason.find("step " + std::to_string(base + 5)), std::string::npos) << backwards.reason;
    EXPECT_TRUE(failed) << "the report with step 777 was not refused by its write";
    EXPECT_EQ(beyond.refusal, IngestResult::Refusal::kStepBeyondJob);
    EXPECT_NE(beyond.reason.find("beyond the job's 5000 steps"), std::string::npos) << beyond.reason;
    EXPECT_EQ(store_.metrics("2", {kTrain}).back().step, base + 150);
    for (const std::string job : {"3", "4", "5"}) {
      EXPECT_EQ(store_.metrics(job, {kTrain}).back().step, 100) << "job " << job;
      EXPECT_EQ(count_of(store_, "SELECT step FROM jobs WHERE id = " + job), 100) << "job " << job;
    }
    EXPECT_EQ(count_of(store_, "SELECT COUNT(*) FROM metric_names WHERE name LIKE 'only/in/%'"), 0);
  }
  EXPECT_TRUE(grouped) << "the reports never queued into one group";
  EXPECT_EQ(count_of(store_, "SELECT COUNT(*) FROM metric_names"), names_before + 1);  // holder/probe
  // The name the failed report added and lost is still usable: its id, forgotten with the rollback, is taken
  // again from the table.
  store_.with_connection([](sqlite3* db) { sqlite3_exec(db, "DROP TRIGGER fail_step_777", nullptr, nullptr, nullptr); });
  EXPECT_EQ(report("4", {{101, 0, "only/in/failed", 1.0}}).stored, 1);
  EXPECT_EQ(store_.metrics("4", {"only/in/failed"}).size(), 1u);
}

}  // namespace
}  // namespace gammalab::testing
