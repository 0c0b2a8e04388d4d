// Gang leases of a job that spans workers (`nodes`, docs/distributed.md) on a real SQLite file, and over real
// gRPC for the rendezvous check: how a gang gathers and is leased as one attempt, how node 0's rendezvous
// reaches the others, how any member's failure, lost lease or drain ends or dissolves it, and why it waits.
#include <gtest/gtest.h>

#include "core/sweep/config_hash.h"
#include "server/pending_reason.h"
#include "server/schema.h"
#include "server/store.h"
#include "tests/service/in_process_coordinator.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {
namespace {

// A sweep of one job of `world_size` ranks over `nodes` workers, then `singles` one-slot jobs.
Sweep gang_sweep(const std::string& name, int world_size, int nodes, int singles = 0) {
  Sweep sweep = make_sweep(name, 1 + singles);
  sweep.jobs[0].config.world_size = world_size;
  sweep.jobs[0].config.nodes = nodes;
  sweep.jobs[0].config_hash = config_hash(sweep.jobs[0].config);
  return sweep;
}

class GangLease : public ::testing::Test {
 protected:
  std::filesystem::path path_ = temp_db("gang");
  std::unique_ptr<Store> store_ = std::make_unique<Store>(path_.string());
  static constexpr std::int64_t kTimeout = 60000;

  std::string job_of(const std::string& sweep_name, int world_size, int nodes, int singles = 0) {
    const auto sweep = store_->create_sweep(gang_sweep(sweep_name, world_size, nodes, singles), "", "", false).sweep;
    return store_->list_jobs(sweep.id)[0].id;
  }
  JobRecord job(const std::string& id) { return *store_->find_job(id); }
  // Two one-slot workers running the 2-node job `id` as nodes 0 and 1 of its first attempt.
  std::pair<std::string, std::string> running_gang(const std::string& id) {
    const std::string w1 = store_->register_worker("one", 1, {}, ""), w2 = store_->register_worker("two", 1, {}, "");
    EXPECT_FALSE(store_->lease(w1, kTimeout));
    EXPECT_FALSE(store_->lease(w2, kTimeout));
    EXPECT_TRUE(store_->lease(w1, kTimeout));
    EXPECT_TRUE(store_->start(w1, id, 1, "127.0.0.1:1234"));
    EXPECT_TRUE(store_->lease(w2, kTimeout));
    EXPECT_EQ(job(id).state, JobState::kRunning);
    return {w1, w2};
  }
  void TearDown() override {
    store_.reset();
    std::filesystem::remove_all(path_.parent_path());
  }
};

TEST_F(GangLease, AGangGathersThenEveryNodeIsLeasedTheOneAttempt) {
  const std::string id = job_of("a", 4, 2);
  EXPECT_EQ(job(id).slots_per_node, 2) << "world_size / nodes slots of each worker";
  EXPECT_EQ(job(id).nodes, 2);
  const std::string w1 = store_->register_worker("one", 2, {}, ""), w2 = store_->register_worker("two", 2, {}, "");

  EXPECT_FALSE(store_->lease(w1, kTimeout, 2)) << "w1 holds node 0's place; nothing to run yet";
  EXPECT_EQ(job(id).state, JobState::kPending);
  EXPECT_FALSE(store_->lease(w1, kTimeout, 2)) << "holding its place, it is leased nothing else";
  EXPECT_FALSE(store_->lease(w2, kTimeout, 1)) << "one free slot is too few for the gang's share";
  EXPECT_EQ(job(id).state, JobState::kPending);
  EXPECT_FALSE(store_->lease(w2, kTimeout, 2)) << "w2 takes the last place, but waits for node 0's rendezvous";
  EXPECT_EQ(job(id).state, JobState::kLeased) << "the gang is whole: one attempt for all";
  EXPECT_EQ(job(id).attempt, 1);
  EXPECT_EQ(job(id).worker_id, w1) << "node 0's worker holds the job";

  auto node0 = store_->lease(w1, kTimeout, 2);
  ASSERT_TRUE(node0);
  EXPECT_EQ(node0->job.id, id);
  EXPECT_EQ(node0->node, 0);
  EXPECT_EQ(node0->attempt, 1);
  EXPECT_FALSE(store_->lease(w2, kTimeout, 2)) << "no rendezvous yet";
  ASSERT_TRUE(store_->start(w1, id, 1, "node-one:29500"));
  EXPECT_EQ(job(id).state, JobState::kRunning);
  auto node1 = store_->lease(w2, kTimeout, 2);
  ASSERT_TRUE(node1);
  EXPECT_EQ(node1->job.id, id);
  EXPECT_EQ(node1->node, 1);
  EXPECT_EQ(node1->attempt, 1);
  EXPECT_EQ(node1->rendezvous, "node-one:29500");
  EXPECT_FALSE(store_->lease(w2, kTimeout, 2)) << "its lease went out once";
  EXPECT_TRUE(store_->start(w2, id, 1)) << "a member's start is accepted and changes nothing";

  const HeartbeatResult beat = store_->heartbeat(w2, {{id, 1}}, false, kTimeout);
  EXPECT_TRUE(beat.lost_job_ids.empty()) << "a member holds the attempt too";
  for (const WorkerRecord& w : store_->list_workers(kTimeout)) {
    EXPECT_EQ(std::vector<std::string>(w.running_job_ids.begin(), w.running_job_ids.end()),
              std::vector<std::string>{id})
        << "worker " << w.id << " runs its node of the job, and `gammalab workers` says so";
  }
  EXPECT_TRUE(store_->finish(w2, id, 1, AttemptEnd::kSucceeded, ""));
  EXPECT_EQ(job(id).state, JobState::kRunning) << "node 0's report ends the attempt";
  EXPECT_TRUE(store_->finish(w1, id, 1, AttemptEnd::kSucceeded, ""));
  EXPECT_EQ(job(id).state, JobState::kSucceeded);
  const auto history = store_->job_events(id, 10).events;
  const auto leased = std::find_if(history.begin(), history.end(),
                                   [](const JobEvent& e) { return e.kind == job_event_kind::kLeased; });
  ASSERT_NE(leased, history.end());
  EXPECT_EQ(leased->detail, "gang of 2 workers (node 0 first): " + w1 + ", " + w2);
  EXPECT_EQ(leased->worker_id, w1);
}

TEST_F(GangLease, AMembersFailureEndsTheAttemptForEveryNode) {
  const std::string id = job_of("a", 2, 2);
  const auto [w1, w2] = running_gang(id);
  EXPECT_FALSE(store_->finish("999", id, 1, AttemptEnd::kFailed, "")) << "no member: a stale report";
  ASSERT_TRUE(store_->finish(w2, id, 1, AttemptEnd::kFailed, "rank 1 crashed"));
  EXPECT_EQ(job(id).state, JobState::kPending) << "requeued, attempts are left";
  EXPECT_EQ(job(id).error, "node 1 (worker " + w2 + "): rank 1 crashed");
  const HeartbeatResult beat = store_->heartbeat(w1, {{id, 1}}, false, kTimeout);
  EXPECT_EQ(beat.lost_job_ids, std::vector<std::string>{id}) << "node 0 stops its ranks";
  EXPECT_FALSE(store_->finish(w1, id, 1, AttemptEnd::kFailed, "peer died")) << "the attempt already ended";

  // The next attempt gathers afresh; the new gang may put the workers in another order.
  EXPECT_FALSE(store_->lease(w2, kTimeout));
  EXPECT_FALSE(store_->lease(w1, kTimeout));
  EXPECT_EQ(job(id).attempt, 2);
  EXPECT_EQ(job(id).worker_id, w2);
}

TEST_F(GangLease, AMemberWhoseLeaseRunsOutEndsTheAttempt) {
  const std::string id = job_of("a", 2, 2);
  const auto [w1, w2] = running_gang(id);
  EXPECT_EQ(store_->expire_leases(), 0);
  store_->heartbeat(w1, {{id, 1}}, false, kTimeout);
  store_->heartbeat(w2, {{id, 1}}, false, /*lease_timeout_ms=*/-1000);  // node 1's place runs out now
  EXPECT_EQ(store_->expire_leases(), 1);
  EXPECT_EQ(job(id).state, JobState::kPending);
  EXPECT_EQ(store_->heartbeat(w1, {{id, 1}}, false, kTimeout).lost_job_ids, std::vector<std::string>{id});
}

TEST_F(GangLease, ACancelReachesEveryMember) {
  const std::string id = job_of("a", 2, 2);
  const auto [w1, w2] = running_gang(id);
  store_->cancel(job(id).sweep_id, {id});
  EXPECT_EQ(store_->heartbeat(w2, {{id, 1}}, false, kTimeout).cancel_job_ids, std::vector<std::string>{id});
  EXPECT_EQ(store_->heartbeat(w1, {{id, 1}}, false, kTimeout).cancel_job_ids, std::vector<std::string>{id});
  ASSERT_TRUE(store_->finish(w2, id, 1, AttemptEnd::kCancelled, ""));
  EXPECT_EQ(job(id).state, JobState::kCancelled);
}

TEST_F(GangLease, AGangDoesNotStartWithoutEnoughLiveWorkersAndSaysWhy) {
  const std::string id = job_of("a", 2, 2, /*singles=*/1);
  const std::string w1 = store_->register_worker("one", 1, {}, "");
  auto lease = store_->lease(w1, kTimeout);
  ASSERT_TRUE(lease) << "one live worker cannot gather a gang of 2: the job behind it runs";
  EXPECT_NE(lease->job.id, id);
  JobRecord waiting = job(id);
  explain_pending(*store_, kTimeout, {&waiting});
  EXPECT_EQ(waiting.pending_reason,
            "needs 2 workers with 1 slot each (world_size / nodes); 1 live worker has 1 slot or more: start 1 more "
            "with --slots 1 or more, or lower nodes");
  store_->register_worker("two", 1, {}, "");
  explain_pending(*store_, kTimeout, {&waiting});
  EXPECT_EQ(waiting.pending_reason, "");
  explain_pending(*store_, -1000, {&waiting});
  EXPECT_EQ(waiting.pending_reason, "needs 2 workers with 1 slot each; no worker is alive (or every one is draining)");
}

TEST_F(GangLease, AGangThatGathersTooLongIsDissolved) {
  const std::string id = job_of("a", 2, 2);
  const std::string w1 = store_->register_worker("one", 1, {}, ""), w2 = store_->register_worker("two", 1, {}, "");
  EXPECT_FALSE(store_->lease(w1, kTimeout, 1, /*gang_wait_ms=*/60000));  // node 0's place
  // w2 asks after the gang wait: w1's gang is let go, and w2 gathers a new one as its node 0.
  EXPECT_FALSE(store_->lease(w2, kTimeout, 1, /*gang_wait_ms=*/-1000));
  EXPECT_FALSE(store_->lease(w1, kTimeout, 1, 60000));
  EXPECT_EQ(job(id).state, JobState::kLeased);
  EXPECT_EQ(job(id).worker_id, w2);
}

TEST_F(GangLease, ADrainingWorkerLetsGoOfItsGatheringGang) {
  const std::string id = job_of("a", 2, 2);
  const std::string w1 = store_->register_worker("one", 1, {}, ""), w2 = store_->register_worker("two", 1, {}, ""),
                    w3 = store_->register_worker("three", 1, {}, "");
  EXPECT_FALSE(store_->lease(w1, kTimeout));
  store_->heartbeat(w1, {}, /*draining=*/true, kTimeout);
  EXPECT_FALSE(store_->lease(w2, kTimeout)) << "w1's gang is gone: w2 starts a new one";
  EXPECT_FALSE(store_->lease(w3, kTimeout));
  EXPECT_EQ(job(id).state, JobState::kLeased);
  EXPECT_EQ(job(id).worker_id, w2);
}

TEST_F(GangLease, ALostHolderDissolvesTheGang) {
  const std::string id = job_of("a", 2, 2);
  const std::string w1 = store_->register_worker("one", 1, {}, ""), w2 = store_->register_worker("two", 1, {}, "");
  EXPECT_FALSE(store_->lease(w1, /*lease_timeout_ms=*/-1000));  // w1's hold runs out at once
  EXPECT_FALSE(store_->lease(w2, kTimeout));  // so w2 starts a gang of its own rather than joining
  EXPECT_EQ(job(id).state, JobState::kPending);
  EXPECT_FALSE(store_->lease(w1, kTimeout));
  EXPECT_EQ(job(id).worker_id, w2);
}

TEST(GangLeaseGateway, ARendezvousIsCheckedBeforeItIsStoredAndLeasesCarryIt) {
  InProcessCoordinator coordinator("gang-gateway");
  Store& store = coordinator.store();
  const auto sweep = store.create_sweep(gang_sweep("a", 2, 2), "", "", false).sweep;
  const std::string id = store.list_jobs(sweep.id)[0].id;
  const std::string w1 = store.register_worker("one", 1, {}, "", coordinator.worker_token_id());
  const std::string w2 = store.register_worker("two", 1, {}, "", coordinator.worker_token_id());
  auto stub = v1::WorkerGateway::NewStub(coordinator.own_channel());
  auto lease = [&](const std::string& worker) {
    v1::LeaseJobRequest request;
    request.set_worker_id(worker);
    request.set_free_slots(1);
    v1::LeaseJobResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    EXPECT_TRUE(stub->LeaseJob(&context, request, &response).ok());
    return response;
  };
  auto start = [&](const std::string& rendezvous) {
    v1::StartJobRequest request;
    request.set_worker_id(w1);
    request.set_job_id(id);
    request.set_attempt(1);
    request.set_rendezvous(rendezvous);
    v1::StartJobResponse response;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    return stub->StartJob(&context, request, &response);
  };
  EXPECT_FALSE(lease(w1).has_job());
  EXPECT_FALSE(lease(w2).has_job());
  const v1::LeaseJobResponse node0 = lease(w1);
  ASSERT_TRUE(node0.has_job());
  EXPECT_EQ(node0.node(), 0);
  EXPECT_EQ(node0.nodes(), 2);
  const std::pair<std::string, std::string> refused[] = {
      {"no-port", "rendezvous: must be host:port, got 'no-port'"},
      {"host:0", "rendezvous: the port must be an integer in [1, 65535], got 'host:0'"},
      {"host:65536", "rendezvous: the port must be an integer in [1, 65535], got 'host:65536'"},
      {"-rf /:1", "rendezvous: the host may hold only letters, digits, '.', '-' and '_' (and ':' inside [ ]), got "
                  "'-rf /:1'"},
      {":80", "rendezvous: the host must be 1 to 253 bytes, got 0 in ':80'"},
      {std::string(300, 'a') + ":80", "rendezvous: the host must be 1 to 253 bytes, got 300 in '" +
                                          std::string(80, 'a') + "...'"},
  };
  for (const auto& [bad, why] : refused) {
    const grpc::Status status = start(bad);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad;
    EXPECT_EQ(status.error_message(), why);
  }
  EXPECT_FALSE(lease(w2).has_job()) << "no rendezvous was stored";
  EXPECT_EQ(store.find_job(id)->state, JobState::kLeased) << "a refused report changes nothing";
  ASSERT_TRUE(start("[::1]:29500").ok());
  const v1::LeaseJobResponse node1 = lease(w2);
  ASSERT_TRUE(node1.has_job());
  EXPECT_EQ(node1.node(), 1);
  EXPECT_EQ(node1.nodes(), 2);
  EXPECT_EQ(node1.attempt(), 1);
  EXPECT_EQ(node1.rendezvous(), "[::1]:29500");
}

TEST(GangLeaseMigration, JobsStoredBeforeGangsTakeTheirConfigsNodes) {
  const auto path = temp_db("gang-migration");
  {
    sql::Database db(path.string());
    ASSERT_EQ(migrate(db, 10), 10);  // the last version without gangs
    db.exec("INSERT INTO sweeps(id, name, file_name, source_yaml, priority, max_attempts, created_ms) "
            "VALUES (1, 'old', 'old.yaml', '', 0, 3, 0)");
    db.exec("INSERT INTO jobs(sweep_id, ordinal, name, config_hash, config_json, state, max_attempts, priority, "
            "total_steps, created_ms, gpus) VALUES "
            "(1, 0, 'span', 'h2', '{\"world_size\": 4, \"nodes\": 2, \"steps\": 10}', 'pending', 3, 0, 10, 0, 4), "
            "(1, 1, 'one', 'h1', '{\"world_size\": 2, \"steps\": 10}', 'pending', 3, 0, 10, 0, 2)");
  }
  Store store(path.string());
  EXPECT_EQ(store.find_job("old/span")->slots_per_node, 2);
  EXPECT_EQ(store.find_job("old/span")->nodes, 2);
  EXPECT_EQ(store.find_job("old/one")->slots_per_node, 2);
  EXPECT_EQ(store.find_job("old/one")->nodes, 1);
  std::filesystem::remove_all(path.parent_path());
}

}  // namespace
}  // namespace gammalab::testing
