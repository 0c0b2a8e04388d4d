// A resume replays only the tail (core/metric_replay.h), with real processes: under a worker a checkpoint keeps
// only the metric lines the coordinator may not have yet, and a job resumed on another worker sends no point the
// coordinator already stores (its Prometheus count of repeated points stays 0), while its curve still equals an
// uninterrupted run's.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/metric.h"
#include "core/shared_root.h"
#include "tests/integration/cluster.h"
#include "tests/integration/db_reader.h"
#include "tests/integration/prometheus_scrape.h"

namespace gammalab::testing {
namespace {

std::int64_t stored_step(DbReader& db, std::int64_t job) {
  return db.count("SELECT COALESCE(MAX(step), 0) FROM metrics WHERE job_id = " + std::to_string(job));
}

std::filesystem::path ckpt_dir(Cluster& cluster, std::int64_t job) {
  return cluster.shared_root() / shared_root::job_ckpt_dir(std::to_string(job));
}

// The step of the checkpoint `latest` names, 0 before the first.
std::int64_t latest_checkpoint_step(Cluster& cluster, std::int64_t job) {
  std::ifstream in(ckpt_dir(cluster, job) / "latest");
  std::string name;
  if (!(in >> name)) return 0;
  const auto step = shared_root::checkpoint_step(name);
  return step.value_or(0);
}

// The steps of the metric lines a checkpoint keeps, read from its safetensors header (an 8-byte little-endian
// length, then JSON whose __metadata__ holds the trainer's own JSON under "gammalab").
std::vector<std::int64_t> kept_line_steps(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  unsigned char size_bytes[8] = {};
  in.read(reinterpret_cast<char*>(size_bytes), 8);
  std::uint64_t size = 0;
  for (int i = 7; i >= 0; --i) size = size << 8 | size_bytes[i];
  EXPECT_LT(size, 100u << 20) << file;
  std::string header(size, '\0');
  in.read(header.data(), static_cast<std::streamsize>(size));
  const auto meta = nlohmann::json::parse(nlohmann::json::parse(header).at("__metadata__").at("gammalab").get<std::string>());
  std::vector<std::int64_t> steps;
  for (const auto& line : meta.at("metric_lines")) steps.push_back(parse_metric_line(line.get<std::string>())->front().step);
  return steps;
}

TEST(ResumeTail, AJobResumedOnAnotherWorkerSendsNoPointTheCoordinatorHasAndItsCheckpointsKeepOnlyTheTail) {
  constexpr int kSteps = 300, kCkptEvery = 20;
  Cluster cluster("resume-tail");
  cluster.prepare_data("d");
  cluster.start_server(/*heartbeat_ms=*/200, /*lease_timeout_ms=*/2000);
  const std::string scraper = cluster.create_token("metrics");
  const int first = cluster.start_worker();
  ASSERT_EQ(
      cluster.cli({"submit", cluster.write_file("s.yaml", tiny_sweep_yaml("s", kSteps, "[baseline]", kCkptEvery)).string()})
          .exit_code,
      0);
  DbReader db(cluster.database());
  ASSERT_TRUE(wait_until([&] { return !db.jobs().empty() && stored_step(db, db.jobs()[0].id) >= 100; }, 300));
  const std::int64_t job = db.jobs()[0].id;
  // The worker tells its trainer what got stored as it relays: two checkpoints after the coordinator stored step
  // `seen`, the trainer knew, and its checkpoint keeps no line from before it.
  const std::int64_t seen = stored_step(db, job);
  ASSERT_TRUE(wait_until([&] { return latest_checkpoint_step(cluster, job) >= seen + 2 * kCkptEvery; }, 300));
  cluster.kill_worker(first, SIGKILL);
  cluster.wait_worker(first);
  ASSERT_LT(stored_step(db, job), kSteps) << "the job finished before the worker was killed; make it longer";
  const std::int64_t at = latest_checkpoint_step(cluster, job);
  const auto kept = kept_line_steps(ckpt_dir(cluster, job) / shared_root::checkpoint_file_name(at));
  ASSERT_FALSE(kept.empty()) << "checkpoint at " << at;
  EXPECT_GE(kept.front(), seen) << "the checkpoint at step " << at << " keeps lines from step " << kept.front()
                                << ", which the coordinator stored before step " << seen;
  // The sweep logs every 5 steps and evaluates every 50: about the lines since `seen`, not the run's.
  EXPECT_LE(kept.size(), static_cast<std::size_t>((at - seen) / 5 + (at - seen) / 50 + 2)) << "checkpoint at " << at;

  std::string text = metrics_text(cluster, scraper);
  EXPECT_EQ(sample(text, "gammalab_metric_points_repeated_total"), 0) << text;
  cluster.start_worker();
  ASSERT_TRUE(wait_until([&] { return db.jobs()[0].state == "succeeded"; }, 300)) << db.jobs()[0].state;
  EXPECT_EQ(db.jobs()[0].attempt, 2);
  text = metrics_text(cluster, scraper);
  EXPECT_EQ(sample(text, "gammalab_metric_points_repeated_total"), 0)
      << "the resumed trainer sent points the coordinator had\n" << text;
  EXPECT_EQ(sample(text, "gammalab_metric_points_ingested_total"),
            static_cast<double>(db.count("SELECT COUNT(*) FROM metrics WHERE job_id = " + std::to_string(job))));

  // Every logging step once, each the uninterrupted run's value.
  const auto reference = standalone_curve(cluster, job);
  const auto loss = db.points(job, "train/loss");
  ASSERT_EQ(loss.size(), reference.size());
  for (const auto& p : loss) EXPECT_EQ(p.value, reference.at(p.step)) << "step " << p.step;
  const std::string log = cluster.cli({"logs", std::to_string(job)}).out;
  EXPECT_NE(log.find("resumed from"), std::string::npos) << log;
}

}  // namespace
}  // namespace gammalab::testing
