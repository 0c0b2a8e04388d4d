// ReportMetrics over real gRPC into a real SQLite file: every class of report the coordinator must refuse is
// refused with an error naming the field and the value, counted, and leaves the database exactly as it was
// (every table dumped before and after), and the coordinator goes on serving.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "server/sqlite.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

// Every row of every table, as text, rows sorted.
std::string dump(const std::filesystem::path& db_path) {
  sql::Database db(db_path.string());
  std::string out;
  for (const char* table : {"sweeps", "jobs", "workers", "metric_names", "metrics", "fits"}) {
    out += std::string("-- ") + table + "\n";
    sqlite3_stmt* stmt = nullptr;
    const std::string query = std::string("SELECT * FROM ") + table;
    if (sqlite3_prepare_v2(db.handle(), query.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << query << ": " << sqlite3_errmsg(db.handle());
      return out;
    }
    std::vector<std::string> rows;
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      std::string row;
      for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
        const unsigned char* text = sqlite3_column_text(stmt, c);
        row += text ? reinterpret_cast<const char*>(text) : "NULL";
        row += '|';
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(stmt);
    std::sort(rows.begin(), rows.end());
    for (const auto& row : rows) out += row + "\n";
  }
  return out;
}

v1::MetricPoint point(std::int64_t step, const std::string& name, double value,
                      std::optional<std::int64_t> tokens = std::nullopt) {
  v1::MetricPoint p;
  p.set_step(step);
  // (A step too large for 100 tokens a step, as a hostile report sends, keeps tokens 0: no overflow in the test.)
  constexpr std::int64_t kLargest = std::numeric_limits<std::int64_t>::max() / 100;
  p.set_tokens(tokens.value_or(step >= -kLargest && step <= kLargest ? step * 100 : 0));
  p.set_name(name);
  p.set_value(value);
  return p;
}

class MetricReports : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string sweep = coordinator_.store().create_sweep(make_sweep("m", 1, 0, 1), "", "", false).sweep.id;
    worker_ = coordinator_.store().register_worker("host", 1, {}, "", coordinator_.worker_token_id());
    auto lease = coordinator_.store().lease(worker_, 600000);
    ASSERT_TRUE(lease);
    job_ = lease->job.id;
    ASSERT_TRUE(coordinator_.store().start(worker_, job_, 1));
    // A run so far: train/loss at steps 1..5, val/loss at 5.
    ASSERT_TRUE(report(job_, 1, {point(1, "train/loss", 4.0), point(2, "train/loss", 3.5), point(5, "train/loss", 3.0),
                                 point(5, "val/loss", 3.2)})
                    .ok());
  }

  grpc::Status report(const std::string& job, int attempt, const std::vector<v1::MetricPoint>& points) {
    return report_metrics(*stub_, job, attempt, points);
  }

  // The report is refused with `code` and a message containing each of `needles`; nothing changed, and the
  // coordinator still takes a good report afterwards.
  void expect_refused(const std::string& job, const std::vector<v1::MetricPoint>& points, grpc::StatusCode code,
                      const std::vector<std::string>& needles) {
    const std::string before = dump(coordinator_.db_path());
    const std::int64_t refused = coordinator_.gateway().refused_metric_reports();
    const grpc::Status status = report(job, 1, points);
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    for (const auto& needle : needles) {
      EXPECT_NE(status.error_message().find(needle), std::string::npos)
          << "'" << needle << "' not in: " << status.error_message();
    }
    EXPECT_EQ(coordinator_.gateway().refused_metric_reports(), refused + 1);
    EXPECT_EQ(dump(coordinator_.db_path()), before) << status.error_message();
    // Still serving: a resend of a stored point is accepted (and changes nothing either).
    EXPECT_TRUE(report(job_, 1, {point(5, "train/loss", 3.0)}).ok());
    EXPECT_EQ(dump(coordinator_.db_path()), before);
  }

  InProcessCoordinator coordinator_{"metric-reports"};
  std::unique_ptr<v1::WorkerGateway::Stub> stub_ = v1::WorkerGateway::NewStub(coordinator_.own_channel());
  std::string worker_, job_;
};

TEST_F(MetricReports, AReportOfMorePointsThanTheLimitIsRefused) {
  std::vector<v1::MetricPoint> points;
  for (std::size_t i = 0; i <= limits::kMaxPointsPerReport; ++i) points.push_back(point(6, "train/loss", 2.0));
  expect_refused(job_, points, grpc::StatusCode::INVALID_ARGUMENT,
                 {"points: 10001 entries, over the limit of 10000"});
}

TEST_F(MetricReports, NonFiniteValuesAreRefused) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  expect_refused(job_, {point(6, "train/loss", nan)}, grpc::StatusCode::INVALID_ARGUMENT,
                 {"job " + job_, "train/loss", "step 6", "value nan", "not finite"});
  expect_refused(job_, {point(6, "val/loss", inf)}, grpc::StatusCode::INVALID_ARGUMENT, {"val/loss", "value inf"});
  expect_refused(job_, {point(6, "grad_norm", -inf)}, grpc::StatusCode::INVALID_ARGUMENT, {"grad_norm", "value -inf"});
  // One bad point refuses its whole report: the good one beside it is not stored either.
  expect_refused(job_, {point(6, "lr", 0.001), point(6, "train/loss", nan)}, grpc::StatusCode::INVALID_ARGUMENT,
                 {"train/loss"});
}

TEST_F(MetricReports, OutOfRangeValuesStepsAndTokensAreRefused) {
  expect_refused(job_, {point(6, "train/loss", -1.5)}, grpc::StatusCode::INVALID_ARGUMENT,
                 {"train/loss", "value -1.5", "negative"});
  expect_refused(job_, {point(6, "tokens_per_s", -3)}, grpc::StatusCode::INVALID_ARGUMENT, {"tokens_per_s", "-3"});
  expect_refused(job_, {point(std::numeric_limits<std::int64_t>::max(), "train/loss", 1.0, 0)},
                 grpc::StatusCode::INVALID_ARGUMENT, {"step 9223372036854775807", "outside"});
  expect_refused(job_, {point(-1, "train/loss", 1.0)}, grpc::StatusCode::INVALID_ARGUMENT, {"step -1"});
  expect_refused(job_, {point(6, "train/loss", 1.0, 0), point(7, "train/loss", 1.0, -5)},
                 grpc::StatusCode::INVALID_ARGUMENT, {"tokens -5"});
  // The job has 10 steps.
  expect_refused(job_, {point(11, "train/loss", 1.0)}, grpc::StatusCode::INVALID_ARGUMENT,
                 {"step 11", "beyond the job's 10 steps"});
  expect_refused(job_, {point(6, "made/up", 1.0)}, grpc::StatusCode::INVALID_ARGUMENT, {"made/up", "not a metric"});
}

TEST_F(MetricReports, StepsGoingBackForAnAttemptAreRefusedButResendsAreNot) {
  expect_refused(job_, {point(3, "train/loss", 3.3)}, grpc::StatusCode::INVALID_ARGUMENT,
                 {"train/loss", "step 3", "after step 5"});
  expect_refused(job_, {point(8, "train/loss", 2.8), point(7, "train/loss", 2.9)}, grpc::StatusCode::INVALID_ARGUMENT,
                 {"step 7", "after step 8"});
  // A resend of what is stored is not a step back.
  const std::string before = dump(coordinator_.db_path());
  EXPECT_TRUE(report(job_, 1, {point(1, "train/loss", 4.0), point(2, "train/loss", 3.5)}).ok());
  EXPECT_EQ(dump(coordinator_.db_path()), before);
  // Another metric has a head of its own; forward is forward.
  EXPECT_TRUE(report(job_, 1, {point(5, "lr", 0.001), point(6, "train/loss", 2.9)}).ok());
  EXPECT_EQ(coordinator_.store().metrics(job_, {"train/loss"}).back().step, 6);
}

TEST_F(MetricReports, UnknownJobsAreNotFoundAndStoreNoMetricName) {
  for (const std::string& job : {std::string("999999"), std::string("not-a-job"), std::string()}) {
    // A metric name the store has not seen yet: it must not appear in metric_names.
    expect_refused(job, {point(1, "sharpness", 1.0)}, grpc::StatusCode::NOT_FOUND, {"job " + job, "no such job"});
  }
}

}  // namespace
}  // namespace gammalab::testing
