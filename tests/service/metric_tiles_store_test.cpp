// The store's downsampled curves, read from its metric tiles, are exactly what the reference M4 downsampling
// keeps of every point (core/metric_downsample.h): for random ranges and bucket counts, after ingest with
// resends, on a reused job's copy, and on a database whose tiles the migration built from older points.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "core/metric_downsample.h"
#include "core/sweep/config_hash.h"
#include "server/schema.h"
#include "server/store.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

constexpr std::int64_t kSteps = 3'000'000;

// Two metrics with sparse, irregular steps up to kSteps: a noisy loss with ties, a spike and NaN steps, and a
// coarse evaluation series.
std::vector<MetricPoint> curves(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::int64_t> gap(1, 150);
  std::uniform_int_distribution<int> coarse(0, 40);
  std::vector<MetricPoint> out;
  for (std::int64_t s = gap(rng); s <= kSteps; s += gap(rng)) {
    double v = 2.0 + coarse(rng) / 16.0;
    if (s % 9973 == 0) v = std::numeric_limits<double>::quiet_NaN();
    out.push_back({s, s * 512, "train/loss", v});
    if (s % 50 == 0) out.push_back({s, s * 512, "val/loss", 2.0 + 1.0 / std::sqrt(double(s))});
  }
  return out;
}

// The job's points of `name` with after < step <= to, downsampled by the reference.
std::vector<MetricPoint> reference(Store& store, const std::string& job, const std::string& name, std::int64_t after,
                                   std::int64_t to, std::size_t buckets) {
  return downsample(store.metrics(job, {name}, after, to), buckets);
}

void expect_same_as_reference(Store& store, const std::string& job, std::uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> step(-1, kSteps + 10);
  const std::size_t bucket_counts[] = {1, 2, 3, 7, 100, 1000, 5000, 100'000};
  for (int trial = 0; trial < 60; ++trial) {
    std::int64_t after = step(rng), to = step(rng);
    if (trial < 8) after = -1, to = std::numeric_limits<std::int64_t>::max();  // the whole curve
    if (to < after) std::swap(after, to);
    const std::size_t buckets = bucket_counts[trial % std::size(bucket_counts)];
    for (const char* name : {"train/loss", "val/loss"}) {
      const auto tiled = store.downsampled_metrics(job, {name}, after, to, buckets);
      const auto expected = reference(store, job, name, after, to, buckets);
      ASSERT_EQ(tiled.size(), expected.size()) << name << " (" << after << ", " << to << "] in " << buckets;
      for (std::size_t i = 0; i < tiled.size(); ++i) {
        ASSERT_EQ(tiled[i].step, expected[i].step) << name << " point " << i;
        ASSERT_EQ(tiled[i].tokens, expected[i].tokens);
        ASSERT_EQ(std::isnan(tiled[i].value), std::isnan(expected[i].value));
        if (!std::isnan(expected[i].value)) {
          ASSERT_EQ(tiled[i].value, expected[i].value);
        }
      }
    }
  }
  // Every metric at once, ordered by name, as the HTTP API groups them.
  const auto both = store.downsampled_metrics(job, {}, -1, kSteps, 50);
  auto expected = reference(store, job, "train/loss", -1, kSteps, 50);
  const auto val = reference(store, job, "val/loss", -1, kSteps, 50);
  expected.insert(expected.end(), val.begin(), val.end());
  EXPECT_EQ(both.size(), expected.size());
  EXPECT_TRUE(store.downsampled_metrics(job, {"no/such"}, -1, kSteps, 50).empty());
}

Sweep long_sweep() {
  Sweep spec = make_sweep("tiles", 1);
  spec.jobs[0].config.steps = kSteps;
  spec.jobs[0].config_hash = config_hash(spec.jobs[0].config);
  return spec;
}

TEST(MetricTilesStore, DownsampledCurvesEqualTheReferenceAfterIngestResendsAndReuse) {
  const auto path = temp_db("tiles");
  {
    Store store(path.string());
    store.create_sweep(long_sweep(), "", "", false);
    const std::string worker = store.register_worker("host", 1, {}, "");
    auto lease = store.lease(worker, 600'000);
    ASSERT_TRUE(lease);
    ASSERT_TRUE(store.start(worker, lease->job.id, lease->attempt));
    const auto points = curves(1);
    // Reports of varying sizes, each resent once (a retrying worker): the resend must not count twice.
    std::mt19937 rng(2);
    std::uniform_int_distribution<std::size_t> size(1, 5000);
    std::int64_t stored = 0;
    for (std::size_t begin = 0; begin < points.size();) {
      const std::size_t end = std::min(points.size(), begin + size(rng));
      const std::vector<MetricPoint> report(points.begin() + long(begin), points.begin() + long(end));
      stored += store.add_metrics(lease->job.id, lease->attempt, report).stored;
      EXPECT_EQ(store.add_metrics(lease->job.id, lease->attempt, report).stored, 0);
      begin = end;
    }
    ASSERT_EQ(stored, std::int64_t(points.size()));
    expect_same_as_reference(store, lease->job.id, 3);
    // The downsampled answer is much smaller than the curve.
    EXPECT_LE(store.downsampled_metrics(lease->job.id, {"train/loss"}, -1, kSteps, 1000).size(), 4000u);

    ASSERT_TRUE(store.finish(worker, lease->job.id, lease->attempt, AttemptEnd::kSucceeded, ""));
    const auto again = store.create_sweep(long_sweep(), "", "", false);
    ASSERT_EQ(again.jobs_reused, 1);
    const std::string copy = store.list_jobs(again.sweep.id).at(0).id;
    expect_same_as_reference(store, copy, 4);
  }
  std::filesystem::remove_all(path.parent_path());
}

TEST(MetricTilesStore, TheMigrationBuildsTilesOfPointsStoredBeforeIt) {
  const auto path = temp_db("tiles-migration");
  const std::string job = "1";
  {
    // A database at the schema before tiles (5), with a job and points stored the way that version stored them.
    sql::Database db(path.string());
    ASSERT_EQ(migrate(db, 5), 5);
    db.exec("INSERT INTO sweeps(name, file_name, source_yaml, priority, max_attempts, created_ms) "
            "VALUES ('old', 'old.yaml', '', 0, 3, 0)");
    db.exec("INSERT INTO jobs(id, sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
            "total_steps, created_ms) VALUES (1, 1, 0, 'old/job0', 'h', '{}', 'succeeded', 3, 0, 3000000, 0)");
    db.exec("INSERT INTO metric_names(name) VALUES ('train/loss'), ('val/loss')");
    sql::Statement insert(db.handle(),
                          "INSERT INTO metrics(job_id, name_id, step, tokens, value) "
                          "VALUES (?, (SELECT id FROM metric_names WHERE name = ?), ?, ?, ?)");
    sql::Transaction tx(db);
    for (const MetricPoint& p : curves(5)) {
      insert.bind(1, std::int64_t{1}).bind(2, p.name).bind(3, p.step).bind(4, p.tokens);
      if (std::isnan(p.value))
        insert.bind_null(5);
      else
        insert.bind(5, p.value);
      insert.run();
    }
    tx.commit();
  }
  Store store(path.string());  // migrates: builds the tiles
  expect_same_as_reference(store, job, 6);
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
