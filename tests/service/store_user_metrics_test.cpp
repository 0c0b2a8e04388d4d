// A job's metrics of its own ("user/NAME", core/metric_names.h) on a real SQLite file: stored like the known ones
// up to the limit per job, counted across reports and attempts' resends, and a report that would pass the limit
// refused whole, naming the metric and the limit, with nothing of it stored; another job has its own count.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/metric_names.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

class UserMetrics : public ::testing::Test {
 protected:
  void SetUp() override {
    Sweep sweep = make_sweep("own", 2);
    for (auto& job : sweep.jobs) job.config.steps = 100;
    store_.create_sweep(sweep, "", "", false);
    const std::string worker = store_.register_worker("host", 2, {}, "");
    for (int j = 0; j < 2; ++j) {
      auto lease = store_.lease(worker, 600'000);
      ASSERT_TRUE(lease);
      ASSERT_TRUE(store_.start(worker, lease->job.id, lease->attempt));
      attempts_[lease->job.id] = lease->attempt;
    }
  }
  void TearDown() override { std::filesystem::remove_all(path_.parent_path()); }

  IngestResult report(const std::string& job, const std::vector<MetricPoint>& points) {
    IngestFence fence;
    fence.admit = [](std::size_t) { return true; };
    return store_.add_metrics(job, attempts_.at(job), points, &fence);
  }
  std::int64_t points_of(const std::string& job) {
    std::int64_t n = -1;
    store_.with_connection([&](sqlite3* db) {
      sqlite3_stmt* s = nullptr;
      ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM metrics WHERE job_id = ?", -1, &s, nullptr), SQLITE_OK);
      sqlite3_bind_int64(s, 1, std::stoll(job));
      if (sqlite3_step(s) == SQLITE_ROW) n = sqlite3_column_int64(s, 0);
      sqlite3_finalize(s);
    });
    return n;
  }

  const std::filesystem::path path_ = temp_db("user-metrics");
  Store store_{path_.string()};
  std::map<std::string, int> attempts_;
};

std::vector<MetricPoint> own(std::int64_t step, std::size_t first, std::size_t count) {
  std::vector<MetricPoint> out{{step, step * 10, std::string(metric_names::kTrainLoss), 2.0}};
  for (std::size_t k = first; k < first + count; ++k) {
    out.push_back({step, step * 10, "user/m" + std::to_string(k), -0.5});
  }
  return out;
}

TEST_F(UserMetrics, UpToTheLimitPerJobAcrossReportsThenARefusalThatStoresNothing) {
  const std::string a = "1", b = "2";
  constexpr std::size_t kLimit = metric_names::kMaxUserMetricsPerJob;
  // Half of the limit in one report, the rest in the next (new names counted with the stored ones).
  IngestResult first = report(a, own(0, 0, kLimit / 2));
  ASSERT_EQ(first.refusal, IngestResult::Refusal::kNone) << first.reason;
  IngestResult second = report(a, own(1, 0, kLimit));
  ASSERT_EQ(second.refusal, IngestResult::Refusal::kNone) << second.reason;
  EXPECT_EQ(second.stored, static_cast<std::int64_t>(kLimit + 1));
  // A resend of what is stored, and later steps of the same names: within the limit.
  EXPECT_EQ(report(a, own(1, 0, kLimit)).stored, 0);
  EXPECT_EQ(report(a, own(2, 0, kLimit)).refusal, IngestResult::Refusal::kNone);
  const std::int64_t stored = points_of(a);
  // One name more: the whole report refused, naming the metric and the limit.
  IngestResult over = report(a, own(3, 0, kLimit + 1));
  EXPECT_EQ(over.refusal, IngestResult::Refusal::kTooManyMetrics);
  EXPECT_EQ(over.reason, "job 1 attempt 1: metric 'user/m" + std::to_string(kLimit) + "' at step 3: more than " +
                             std::to_string(kLimit) + " metrics of the job's own (user/NAME), the limit per job");
  EXPECT_EQ(points_of(a), stored) << "nothing of a refused report is stored";
  // Another job counts its own.
  IngestResult other = report(b, own(0, 100, kLimit));
  EXPECT_EQ(other.refusal, IngestResult::Refusal::kNone) << other.reason;
}

// Reports from many threads at once, each bringing 8 new names to one job, written in groups: the count sees the
// reports before it in its group, so exactly as many reports as fit the limit are stored, whole, and the others
// are refused whole; the job never holds more than the limit.
TEST_F(UserMetrics, ConcurrentReportsNeverTakeAJobPastTheLimit) {
  constexpr int kThreads = 8, kNamesEach = 8;
  std::atomic<int> stored_reports{0}, refused_reports{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<MetricPoint> points;
      for (int k = 0; k < kNamesEach; ++k) {
        points.push_back({0, 0, "user/t" + std::to_string(t) + "_" + std::to_string(k), 1.0});
      }
      const IngestResult r = report("1", points);
      if (r.refusal == IngestResult::Refusal::kNone && r.stored == kNamesEach) ++stored_reports;
      if (r.refusal == IngestResult::Refusal::kTooManyMetrics) ++refused_reports;
    });
  }
  for (auto& t : threads) t.join();
  const int fit = static_cast<int>(metric_names::kMaxUserMetricsPerJob) / kNamesEach;
  EXPECT_EQ(stored_reports.load(), fit);
  EXPECT_EQ(refused_reports.load(), kThreads - fit);
  EXPECT_EQ(points_of("1"), static_cast<std::int64_t>(metric_names::kMaxUserMetricsPerJob));
}

}  // namespace
}  // namespace gammalab::testing
