// 20 workers, each with its own gRPC connection, lease from 200 pending jobs at once: no job twice.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <thread>

#include "server/sqlite.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

TEST(LeaseConcurrency, TwentyWorkersNeverShareAJob) {
  InProcessCoordinator coordinator("lease-concurrency");
  coordinator.store().create_sweep(make_sweep("many", 200), "", "", false);

  constexpr int kWorkers = 20;
  // Twenty channels connecting at once: a connection attempt can fail transiently (UNAVAILABLE), which a caller
  // rides out by waiting for the channel to be ready, as the worker daemon does by retrying.
  auto context = [] {
    auto c = std::make_unique<grpc::ClientContext>();
    c->set_wait_for_ready(true);
    c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    return c;
  };
  std::vector<std::vector<std::string>> leased(kWorkers);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      auto stub = v1::WorkerGateway::NewStub(coordinator.own_channel());
      v1::RegisterWorkerRequest reg;
      reg.set_hostname("w" + std::to_string(w));
      reg.set_slots(1);
      v1::RegisterWorkerResponse registered;
      const grpc::Status st = stub->RegisterWorker(context().get(), reg, &registered);
      ASSERT_TRUE(st.ok()) << st.error_code() << ": " << st.error_message();
      while (true) {
        v1::LeaseJobRequest request;
        request.set_worker_id(registered.worker_id());
        v1::LeaseJobResponse response;
        const grpc::Status lease = stub->LeaseJob(context().get(), request, &response);
        ASSERT_TRUE(lease.ok()) << lease.error_code() << ": " << lease.error_message();
        if (!response.has_job()) break;
        leased[static_cast<std::size_t>(w)].push_back(response.job().id());
      }
    });
  }
  for (auto& t : threads) t.join();

  std::multiset<std::string> all;
  for (const auto& l : leased) all.insert(l.begin(), l.end());
  EXPECT_EQ(all.size(), 200u);
  EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), 200u) << "a job was leased twice";
  int busy_workers = 0;
  for (const auto& l : leased) busy_workers += l.empty() ? 0 : 1;
  EXPECT_GT(busy_workers, 1) << "leases were not spread over workers";

  // The database agrees: every job leased exactly once, by exactly one worker.
  sql::Database db(coordinator.db_path().string());
  sql::Statement s(db.handle(),
                   "SELECT COUNT(*), SUM(attempt = 1), SUM(state = 'leased'), COUNT(DISTINCT worker_id) FROM jobs");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.int64(0), 200);
  EXPECT_EQ(s.int64(1), 200);
  EXPECT_EQ(s.int64(2), 200);
  EXPECT_EQ(s.int64(3), busy_workers);
}

}  // namespace
}  // namespace gammalab::testing
