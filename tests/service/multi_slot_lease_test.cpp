// Leases of jobs that take several slots (a job's world_size, docs/distributed.md) on a real SQLite file and
// over real gRPC: which job a worker gets for its free slots, the reason a job no worker can take shows, the
// check of a worker's free_slots, and the migration that sizes jobs stored before sizes existed.
#include <gtest/gtest.h>

#include "core/sweep/config_hash.h"
#include "server/pending_reason.h"
#include "server/schema.h"
#include "server/store.h"
#include "tests/service/in_process_coordinator.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

// A sweep whose jobs have these world sizes (0: unset), in this order.
Sweep sized_sweep(const std::string& name, const std::vector<int>& world_sizes) {
  Sweep sweep = make_sweep(name, static_cast<int>(world_sizes.size()));
  for (std::size_t i = 0; i < world_sizes.size(); ++i) {
    if (world_sizes[i] > 0) sweep.jobs[i].config.world_size = world_sizes[i];
    sweep.jobs[i].config_hash = config_hash(sweep.jobs[i].config);
  }
  return sweep;
}

class MultiSlotLease : public ::testing::Test {
 protected:
  std::filesystem::path path_ = temp_db("multi-slot");
  std::unique_ptr<Store> store_ = std::make_unique<Store>(path_.string());
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(path_.parent_path());
  }
};

TEST_F(MultiSlotLease, AJobWaitsForEnoughFreeSlotsAndSmallerJobsBehindItWaitToo) {
  const auto sweep = store_->create_sweep(sized_sweep("a", {0, 2, 0}), "", "", false).sweep;
  const auto jobs = store_->list_jobs(sweep.id);
  EXPECT_EQ(jobs[0].slots_per_node, 1) << "unset world_size: one slot";
  EXPECT_EQ(jobs[1].slots_per_node, 2);
  const std::string w = store_->register_worker("host", 2, {}, "");

  auto first = store_->lease(w, 60000, /*free_slots=*/2);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->job.id, jobs[0].id);
  EXPECT_FALSE(store_->lease(w, 60000, /*free_slots=*/1))
      << "the 2-slot job is next: one free slot is kept for it, not given to the 1-slot job behind it";
  ASSERT_TRUE(store_->finish(w, first->job.id, 1, AttemptEnd::kSucceeded, ""));
  auto second = store_->lease(w, 60000, /*free_slots=*/2);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->job.id, jobs[1].id);
  EXPECT_EQ(second->job.slots_per_node, 2);
  EXPECT_FALSE(store_->lease(w, 60000, /*free_slots=*/0)) << "no free slot, no lease";
}

TEST_F(MultiSlotLease, AJobLargerThanTheWorkerIsSkippedForItAndSaysWhy) {
  const auto sweep = store_->create_sweep(sized_sweep("a", {4, 0}), "", "", false).sweep;
  const auto jobs = store_->list_jobs(sweep.id);
  const std::string small = store_->register_worker("small", 2, {}, "");
  auto lease = store_->lease(small, 60000, 2);
  ASSERT_TRUE(lease);
  EXPECT_EQ(lease->job.id, jobs[1].id) << "the 4-slot job can never run on 2 slots: it blocks nobody";
  EXPECT_FALSE(store_->lease(small, 60000, 1));

  JobRecord big = *store_->find_job(jobs[0].id);
  explain_pending(*store_, 60000, {&big});
  EXPECT_EQ(big.pending_reason,
            "needs 4 slots of one worker (its world_size); the largest live worker has 2 slots: start a worker with "
            "--slots 4 or more, or lower world_size");
  JobRecord leased = *store_->find_job(jobs[1].id);
  explain_pending(*store_, 60000, {&leased});
  EXPECT_EQ(leased.pending_reason, "") << "only pending jobs get a reason";

  store_->register_worker("large", 8, {}, "");
  explain_pending(*store_, 60000, {&big});
  EXPECT_EQ(big.pending_reason, "") << "an 8-slot worker is alive: the job only waits for it";
  explain_pending(*store_, /*worker_timeout_ms=*/-1000, {&big});
  EXPECT_EQ(big.pending_reason, "needs 4 slots of one worker; no worker is alive (or every one is draining)");
}

TEST(MultiSlotLeaseGateway, AWorkerCannotClaimMoreFreeSlotsThanItRegistered) {
  InProcessCoordinator coordinator("multi-slot-gateway");
  coordinator.store().create_sweep(sized_sweep("a", {2}), "", "", false);
  const std::string w = coordinator.store().register_worker("host", 2, {}, "", coordinator.worker_token_id());
  auto stub = v1::WorkerGateway::NewStub(coordinator.own_channel());
  auto lease = [&](std::optional<int> free_slots, v1::LeaseJobResponse& response) {
    v1::LeaseJobRequest request;
    request.set_worker_id(w);
    if (free_slots) request.set_free_slots(*free_slots);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return stub->LeaseJob(&context, request, &response);
  };
  for (const int bad : {3, 0, -1}) {
    v1::LeaseJobResponse response;
    const grpc::Status status = lease(bad, response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad;
    EXPECT_EQ(status.error_message(), "free_slots: must be in [1, 2] (the slots worker " + w +
                                          " registered with), got " + std::to_string(bad));
  }
  v1::LeaseJobResponse response;
  ASSERT_TRUE(lease(std::nullopt, response).ok());
  EXPECT_FALSE(response.has_job()) << "a worker that gives no count has one slot free: too few for the job";
  ASSERT_TRUE(lease(2, response).ok());
  ASSERT_TRUE(response.has_job());
  EXPECT_EQ(response.job().slots_per_node(), 2);
}

TEST(MultiSlotLeaseMigration, JobsStoredBeforeSizesTakeTheirConfigsWorldSize) {
  const auto path = temp_db("multi-slot-migration");
  {
    sql::Database db(path.string());
    ASSERT_EQ(migrate(db, 7), 7);  // the last version without job sizes
    db.exec("INSERT INTO sweeps(id, name, file_name, source_yaml, priority, max_attempts, created_ms) "
            "VALUES (1, 'old', 'old.yaml', '', 0, 3, 0)");
    db.exec("INSERT INTO jobs(sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
            "total_steps, created_ms) VALUES "
            "(1, 0, 'two', 'h2', '{\"world_size\": 2, \"steps\": 10}', 'pending', 3, 0, 10, 0), "
            "(1, 1, 'one', 'h1', '{\"steps\": 10}', 'pending', 3, 0, 10, 0)");
  }
  Store store(path.string());
  EXPECT_EQ(store.find_job("old/two")->slots_per_node, 2);
  EXPECT_EQ(store.find_job("old/one")->slots_per_node, 1);
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
