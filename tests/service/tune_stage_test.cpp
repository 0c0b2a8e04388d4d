// A sweep with a tune stage on a real coordinator: the tune jobs run first, the coordinator picks the best LR
// per variant and adds the main stage with it, the fit reads only the main stage, and a resubmission reuses
// both stages.
#include <cmath>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/client/coordinator_client.h"
#include "core/job_config.h"
#include "server/tune_stage.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

const char* kYaml = R"(
name: tuned
base:
  model: {preset: tiny-0.03m}
  optim: {name: adamw, lr: 1e-3}
  steps: 8
axes:
  grid:
    model.preset: [tiny-0.03m, tiny-0.05m]
    scale.variant: [baseline, unified]
tune:
  grid:
    optim.lr: [1e-3, 2e-3, 4e-3, 8e-3]
  axes:
    model.preset: [tiny-0.03m]
  base: {steps: 4}
  per: [scale.variant]
)";

// The synthetic objective: baseline is best at 2e-3, unified at 4e-3; `shift` moves both optima.
double objective(const JobConfig& c, double shift) {
  const double best = (c.scale.variant == "unified" ? 4e-3 : 2e-3) * shift;
  const double x = std::log2(c.optim.lr / best);
  return 3.0 + 0.1 * x * x;
}

// Leases one pending job and finishes it with a val loss at its last step from the objective; false when none
// is pending.
bool run_one(Store& store, const std::string& worker, double shift) {
  auto lease = store.lease(worker, 60000);
  if (!lease) return false;
  const JobConfig config = job_config_from_json(nlohmann::json::parse(lease->job.config_json));
  store.start(worker, lease->job.id, lease->attempt);
  store.add_metrics(lease->job.id, lease->attempt, {{config.steps, 1000, "val/loss", objective(config, shift)}});
  EXPECT_TRUE(store.finish(worker, lease->job.id, lease->attempt, AttemptEnd::kSucceeded, ""));
  return true;
}

// Every pending job, as run_one.
int run_pending(Store& store, const std::string& worker, double shift) {
  int ran = 0;
  while (run_one(store, worker, shift)) ++ran;
  return ran;
}

v1::SubmitSweepResponse submit(const InProcessCoordinator& coordinator, const std::string& yaml) {
  auto stub = connect_coordinator(coordinator.address());
  v1::SubmitSweepRequest request;
  request.set_yaml(yaml);
  request.set_file_name("tuned.yaml");
  v1::SubmitSweepResponse response;
  check(stub->SubmitSweep(rpc_context().get(), request, &response), "submit");
  return response;
}

TEST(TuneStage, RunsFirstThenAddsTheMainStageWithTheBestLrPerVariant) {
  InProcessCoordinator coordinator("tune-stage");
  Store& store = coordinator.store();
  TuneStage stages(store, /*background=*/false);
  const std::string worker = store.register_worker("host", 1, {}, "");

  const auto first = submit(coordinator, kYaml);
  const std::string sweep = first.sweep().id();
  EXPECT_EQ(first.jobs_created(), 8) << "two variants x four LRs at one size";
  EXPECT_TRUE(first.sweep().awaiting_main_stage());
  EXPECT_FALSE(first.sweep().finished());
  EXPECT_FALSE(stages.advance(sweep)) << "the tune jobs have not run";

  EXPECT_EQ(run_pending(store, worker, 1.0), 8);
  EXPECT_FALSE(store.find_sweep(sweep)->finished) << "not finished while the main stage is still to come";
  ASSERT_TRUE(stages.advance(sweep));
  const SweepRecord after = *store.find_sweep(sweep);
  EXPECT_FALSE(after.awaiting_main_stage);
  EXPECT_TRUE(after.stage_error.empty()) << after.stage_error;
  const auto report = nlohmann::json::parse(after.tune_report_json);
  ASSERT_EQ(report["groups"].size(), 2u) << report.dump(2);

  int main_jobs = 0;
  for (const auto& job : store.list_jobs(sweep)) {
    if (job.stage != "main") continue;
    ++main_jobs;
    EXPECT_EQ(job.state, JobState::kPending) << job.name;
    const JobConfig config = job_config_from_json(nlohmann::json::parse(job.config_json));
    EXPECT_EQ(config.optim.lr, config.scale.variant == "unified" ? 4e-3 : 2e-3) << job.name;
    EXPECT_EQ(config.steps, 8) << "the main stage keeps its own budget";
  }
  EXPECT_EQ(main_jobs, 4);
  EXPECT_TRUE(store.fit_inputs(sweep).empty()) << "tune runs are not points of the sweep's fit";

  EXPECT_EQ(run_pending(store, worker, 1.0), 4);
  EXPECT_EQ(store.fit_inputs(sweep).size(), 4u);
  EXPECT_TRUE(store.find_sweep(sweep)->finished);

  // Resubmitted, the same file reuses every tune run, picks the same values and reuses every main run.
  const auto again = submit(coordinator, kYaml);
  EXPECT_EQ(again.jobs_created(), 0);
  EXPECT_EQ(again.jobs_reused(), 8);
  ASSERT_TRUE(stages.advance(again.sweep().id()));
  const SweepRecord reused = *store.find_sweep(again.sweep().id());
  EXPECT_TRUE(reused.finished);
  EXPECT_EQ(reused.job_counts.at("succeeded"), 12);
  for (const auto& job : store.list_jobs(reused.id)) EXPECT_FALSE(job.reused_from.empty()) << job.name;
}

// A study grown where `fit --next` says: the same file with `more_seeds:` at one size, resubmitted, reuses every
// finished run, picks the same values, and runs only the new seed's jobs, at the picked LRs.
TEST(TuneStage, AStudyGrownByMoreSeedsRunsOnlyTheNewSeedsJobs) {
  InProcessCoordinator coordinator("tune-more-seeds");
  Store& store = coordinator.store();
  TuneStage stages(store, /*background=*/false);
  const std::string worker = store.register_worker("host", 1, {}, "");
  const auto first = submit(coordinator, kYaml);
  run_pending(store, worker, 1.0);
  ASSERT_TRUE(stages.advance(first.sweep().id()));
  EXPECT_EQ(run_pending(store, worker, 1.0), 4);

  const std::string grown_yaml =
      std::string(kYaml) + "more_seeds:\n  - {where: {model.preset: tiny-0.03m}, seeds: [1]}\n";
  const auto grown = submit(coordinator, grown_yaml);
  EXPECT_EQ(grown.jobs_created(), 0) << "the tune stage keeps its own seeds";
  EXPECT_EQ(grown.jobs_reused(), 8);
  ASSERT_TRUE(stages.advance(grown.sweep().id()));
  int fresh = 0;
  for (const auto& job : store.list_jobs(grown.sweep().id())) {
    const JobConfig config = job_config_from_json(nlohmann::json::parse(job.config_json));
    if (!job.reused_from.empty()) continue;
    ++fresh;
    EXPECT_EQ(config.seed, 1u) << job.name;
    EXPECT_EQ(config.model.preset, "tiny-0.03m") << job.name;
    EXPECT_EQ(config.optim.lr, config.scale.variant == "unified" ? 4e-3 : 2e-3) << "the new seed runs at the pick";
  }
  EXPECT_EQ(fresh, 2) << "one new seed for each arm at the one size";
  EXPECT_EQ(run_pending(store, worker, 1.0), 2);
  EXPECT_EQ(store.fit_inputs(grown.sweep().id()).size(), 6u) << "the four main runs reused and the two new ones";
}

TEST(TuneStage, ABestLrOnTheEdgeOfTheGridAddsNoMainStageAndSaysWhy) {
  InProcessCoordinator coordinator("tune-edge");
  Store& store = coordinator.store();
  TuneStage stages(store, /*background=*/false);
  const std::string worker = store.register_worker("host", 1, {}, "");
  const std::string sweep = submit(coordinator, kYaml).sweep().id();
  EXPECT_EQ(run_pending(store, worker, 8.0), 8);  // both optima far above the grid
  ASSERT_TRUE(stages.advance(sweep));
  const SweepRecord after = *store.find_sweep(sweep);
  EXPECT_FALSE(after.awaiting_main_stage);
  EXPECT_TRUE(after.finished);
  EXPECT_NE(after.stage_error.find("is the largest value of the grid: widen the grid"), std::string::npos)
      << after.stage_error;
  for (const auto& job : store.list_jobs(sweep)) EXPECT_EQ(job.stage, "tune") << "no main stage was added";
}

// With tune.extend and tune.refine the coordinator adds tune jobs in rounds, each once every run before it has
// ended, and picks only when no round adds one; the main stage runs at the widened and refined picks.
TEST(TuneStage, AnEdgePickWidensTheGridInRoundsOnTheCoordinatorBeforeTheMainStage) {
  InProcessCoordinator coordinator("tune-rounds");
  Store& store = coordinator.store();
  TuneStage stages(store, /*background=*/false);
  const std::string worker = store.register_worker("host", 1, {}, "");
  const std::string sweep = submit(coordinator, std::string(kYaml) + "  extend: 3\n  refine: true\n").sweep().id();
  EXPECT_EQ(run_pending(store, worker, 4.0), 8);  // optima 8e-3 (baseline) and 16e-3 (unified): both at or past the edge
  int rounds = 0;
  while (!stages.advance(sweep)) {
    ASSERT_LT(++rounds, 10) << "the rounds end";
    EXPECT_GT(run_pending(store, worker, 4.0), 0) << "a round that adds nothing is not a round";
    // The same round asked for twice (a second coordinator thread, a restart) adds nothing twice.
    EXPECT_EQ(store.add_tune_round(sweep, Sweep{}), 0);
  }
  const SweepRecord after = *store.find_sweep(sweep);
  ASSERT_TRUE(after.stage_error.empty()) << after.stage_error;
  const auto report = nlohmann::json::parse(after.tune_report_json);
  int extended = 0, refined = 0;
  for (const auto& g : report["groups"]) {
    for (const auto& t : g["trials"]) {
      extended += t.value("origin", "") == "extended";
      refined += t.value("origin", "") == "refined";
    }
  }
  EXPECT_GT(extended, 0) << report.dump(1);
  EXPECT_EQ(refined, 4) << "two midpoints per group";
  for (const auto& job : store.list_jobs(sweep)) {
    if (job.stage != "main") continue;
    const JobConfig config = job_config_from_json(nlohmann::json::parse(job.config_json));
    EXPECT_DOUBLE_EQ(config.optim.lr, config.scale.variant == "unified" ? 16e-3 : 8e-3) << job.name;
  }
}

// A sweep cancelled while its tune stage runs gets no further round and no main stage, whatever the tune runs
// that had finished would pick.
TEST(TuneStage, ASweepCancelledDuringItsTuneStageGetsNoRoundAndNoMainStage) {
  InProcessCoordinator coordinator("tune-cancel");
  Store& store = coordinator.store();
  TuneStage stages(store, /*background=*/false);
  const std::string worker = store.register_worker("host", 1, {}, "");
  const std::string sweep = submit(coordinator, std::string(kYaml) + "  extend: 2\n  refine: true\n").sweep().id();
  // Half the tune runs finish, then the sweep is cancelled.
  for (int ran = 0; ran < 4; ++ran) ASSERT_TRUE(run_one(store, worker, 1.0));
  const std::size_t before = store.list_jobs(sweep).size();
  store.cancel(sweep, {});
  EXPECT_TRUE(stages.advance(sweep));
  const SweepRecord after = *store.find_sweep(sweep);
  EXPECT_FALSE(after.awaiting_main_stage);
  EXPECT_TRUE(after.finished);
  EXPECT_NE(after.stage_error.find("cancelled during its tune stage"), std::string::npos) << after.stage_error;
  EXPECT_EQ(store.list_jobs(sweep).size(), before) << "no round and no main stage were added";
  EXPECT_EQ(store.add_tune_round(sweep, Sweep{}), 0);
}

// A WSD sweep with cooldown branches and a tune stage: the tune runs come first, and the main stage that the
// picks add holds every run with its branches, which wait for their run's checkpoint and carry its pick.
TEST(TuneStage, ABranchedSweepGetsItsRunsAndBranchesAtThePick) {
  InProcessCoordinator coordinator("tune-branches");
  Store& store = coordinator.store();
  TuneStage stages(store, /*background=*/false);
  const std::string worker = store.register_worker("host", 1, {}, "");
  const std::string yaml = R"(
name: tuned-wsd
base:
  model: {preset: tiny-2x16}
  optim: {name: adamw, lr: 1e-3}
  schedule:
    kind: wsd
    warmup_steps: 4
    decay_steps: max(1, round(0.2 * steps))
  batch_tokens: 2048
  tokens: round(40 * params / batch_tokens) * batch_tokens
axes:
  grid:
    scale.variant: [baseline, unified]
branches: {tokens_per_param: [10, 20]}
tune:
  grid:
    optim.lr: [1e-3, 2e-3, 4e-3, 8e-3]
  base:
    tokens: round(10 * params / batch_tokens) * batch_tokens
)";
  const std::string sweep = submit(coordinator, yaml).sweep().id();
  EXPECT_EQ(run_pending(store, worker, 1.0), 8) << "the tune runs, without branches";
  ASSERT_TRUE(stages.advance(sweep));
  const SweepRecord after = *store.find_sweep(sweep);
  ASSERT_TRUE(after.stage_error.empty()) << after.stage_error;
  std::map<std::string, JobRecord> runs;
  int branches = 0;
  for (const auto& job : store.list_jobs(sweep)) {
    if (job.stage != "main") continue;
    const JobConfig config = job_config_from_json(nlohmann::json::parse(job.config_json));
    EXPECT_EQ(config.optim.lr, config.scale.variant == "unified" ? 4e-3 : 2e-3) << job.name;
    if (job.parent_id.empty()) {
      EXPECT_EQ(job.branch_points.size(), 2u) << job.name;
      runs[job.id] = job;
    } else {
      ++branches;
      EXPECT_GT(job.branch_step, 0) << job.name;
      EXPECT_EQ(job.name.rfind(runs.at(job.parent_id).name + "/D=", 0), 0u) << job.name;
    }
  }
  EXPECT_EQ(runs.size(), 2u);
  EXPECT_EQ(branches, 4);
}

}  // namespace
}  // namespace gammalab::testing
