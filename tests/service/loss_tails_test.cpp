// The ends of the loss curves kept beside the points (server/store/loss_tails.cpp): what ingest keeps is what
// the points say (the last Store::kLossTail of each loss, NaN included), a reused job gets its source's, a
// sweep's runs read them all at once, and a database from before the table gets them from its points.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/metric_names.h"
#include "server/schema.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

const std::string kTrain(metric_names::kTrainLoss), kVal(metric_names::kValLoss);

// The last kLossTail points of each loss, from the points themselves.
JobLosses tails_from_points(Store& store, const std::string& job_id) {
  JobLosses out;
  out.job_id = job_id;
  for (const MetricPoint& p : store.metrics(job_id, {kTrain, kVal})) out.add(p);
  for (auto* curve : {&out.train_loss, &out.val_loss}) {
    if (curve->size() > std::size_t(Store::kLossTail)) curve->erase(curve->begin(), curve->end() - Store::kLossTail);
  }
  return out;
}

void expect_same(const std::vector<MetricPoint>& a, const std::vector<MetricPoint>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].step, b[i].step);
    EXPECT_EQ(a[i].tokens, b[i].tokens);
    EXPECT_EQ(a[i].name, b[i].name);
    if (std::isnan(a[i].value)) {
      EXPECT_TRUE(std::isnan(b[i].value)) << "step " << a[i].step;
    } else {
      EXPECT_EQ(a[i].value, b[i].value) << "step " << a[i].step;
    }
  }
}

void expect_same(const JobLosses& a, const JobLosses& b) {
  EXPECT_EQ(a.job_id, b.job_id);
  expect_same(a.train_loss, b.train_loss);
  expect_same(a.val_loss, b.val_loss);
}

TEST(LossTails, IngestKeepsTheLastPointsOfEachLossAndRunsReadThemForTheWholeSweep) {
  const auto path = temp_db("loss-tails");
  {
    Store store(path.string());
    Sweep spec = make_sweep("s", 3);
    for (auto& job : spec.jobs) job.config.steps = 30;  // (the config hash is the test's: only reuse compares it)
    const std::string sweep = store.create_sweep(spec, "", "", false).sweep.id;
    const std::string worker = store.register_worker("host", 3, {}, "");
    // Job 1: a long curve in three reports, a NaN among its last points, a resend with another value (ignored,
    // as the points are); job 2: a curve shorter than the tail; job 3: none.
    auto first = store.lease(worker, 60000);
    auto second = store.lease(worker, 60000);
    ASSERT_TRUE(first && second);
    store.start(worker, first->job.id, first->attempt);
    store.start(worker, second->job.id, second->attempt);
    for (int report = 0; report < 3; ++report) {
      std::vector<MetricPoint> points;
      for (std::int64_t s = report * 10 + 1; s <= report * 10 + 10; ++s) {
        const double loss = s == 25 ? std::numeric_limits<double>::quiet_NaN() : 5.0 - 0.1 * double(s);
        points.push_back({s, s * 8, kTrain, loss});
        if (s % 4 == 0) points.push_back({s, s * 8, kVal, loss + 0.5});
        points.push_back({s, s * 8, "lr", 0.1});
      }
      if (report == 2) points.push_back({30, 240, kTrain, 99.0});  // a resend of step 30 with another value
      ASSERT_EQ(store.add_metrics(first->job.id, first->attempt, points).refusal, IngestResult::Refusal::kNone);
    }
    store.add_metrics(second->job.id, second->attempt, {{1, 8, kTrain, 4.0}, {2, 16, kVal, 4.5}});
    store.finish(worker, first->job.id, first->attempt, AttemptEnd::kSucceeded, "");

    for (const auto& job : store.list_jobs(sweep)) expect_same(store.loss_tails(job.id), tails_from_points(store, job.id));
    EXPECT_EQ(store.loss_tails(first->job.id).train_loss.size(), std::size_t(Store::kLossTail));
    EXPECT_EQ(store.loss_tails(first->job.id).train_loss.back().value, 5.0 - 3.0) << "the first value of a step stays";

    // A job that reuses the first's results has its tails too.
    Sweep again = make_sweep("again", 1);
    again.jobs[0].config = spec.jobs[0].config;
    again.jobs[0].config_hash = spec.jobs[0].config_hash;
    const auto reused = store.create_sweep(again, "", "", false);
    ASSERT_EQ(reused.jobs_reused, 1);
    const std::string reused_job = store.list_jobs(reused.sweep.id)[0].id;
    JobLosses expected = store.loss_tails(first->job.id);
    expected.job_id = reused_job;
    expect_same(store.loss_tails(reused_job), expected);

    const auto jobs = store.list_jobs(sweep);
    const auto runs = store.runs(sweep);
    ASSERT_EQ(runs.size(), jobs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(runs[i].job, jobs[i]);
      expect_same(runs[i].losses, store.loss_tails(jobs[i].id));
    }
    EXPECT_TRUE(store.runs("999").empty());
  }
  std::filesystem::remove_all(path.parent_path());
}

TEST(LossTailsMigration, ADatabaseFromBeforeTheTableGetsTheTailsOfItsPoints) {
  const auto path = temp_db("loss-tails-migration");
  {
    sql::Database db(path.string());
    ASSERT_EQ(migrate(db, 13), 13);  // the last version without loss_tails
    db.exec("INSERT INTO sweeps(name, file_name, source_yaml, priority, max_attempts, created_ms) "
            "VALUES ('old', 'old.yaml', '', 0, 3, 0);"
            "INSERT INTO jobs(sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
            "total_steps, created_ms) VALUES (1, 0, 'old/a', 'ha', '{}', 'succeeded', 3, 0, 100, 0), "
            "(1, 1, 'old/b', 'hb', '{}', 'succeeded', 3, 0, 100, 0);"
            "INSERT INTO metric_names(id, name) VALUES (1, 'lr'), (2, '" + kTrain + "'), (3, '" + kVal + "');");
    sql::Statement insert(db.handle(), "INSERT INTO metrics(job_id, name_id, step, tokens, value) VALUES (?, ?, ?, ?, ?)");
    for (std::int64_t s = 1; s <= 40; ++s) {
      for (std::int64_t name = 1; name <= 3; ++name) {
        if (name == 3 && s % 5 != 0) continue;
        insert.bind(1, std::int64_t{1}).bind(2, name).bind(3, s).bind(4, s * 8);
        if (s == 38) insert.bind_null(5);  // NaN
        else insert.bind(5, 10.0 / double(s) + double(name));
        insert.run();
      }
    }
  }
  {
    Store store(path.string());  // migrates to the latest version
    for (const std::string job : {"1", "2"}) expect_same(store.loss_tails(job), tails_from_points(store, job));
    const JobLosses a = store.loss_tails("1");
    EXPECT_EQ(a.train_loss.size(), std::size_t(Store::kLossTail));
    EXPECT_EQ(a.train_loss.front().step, 40 - Store::kLossTail + 1);
    EXPECT_EQ(a.val_loss.size(), 8u);
    EXPECT_TRUE(std::isnan(a.train_loss[std::size_t(Store::kLossTail) - 3].value));
    EXPECT_TRUE(store.loss_tails("2").train_loss.empty());
  }
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
