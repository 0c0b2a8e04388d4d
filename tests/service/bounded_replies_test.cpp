// Replies do not grow with the sweep: ListJobs pages (every job once, in order, states filtered across pages,
// bad page arguments refused naming the field), and WatchSweep sends each round's changed jobs only.
#include <gtest/gtest.h>

#include <set>

#include "cli/client/coordinator_client.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

TEST(BoundedReplies, ListJobsPagesEveryJobOnceInOrder) {
  InProcessCoordinator coordinator("list-pages");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("paged", 250), "", "", false).sweep.id();
  const std::vector<v1::Job> all = coordinator.store().list_jobs(sweep);
  auto stub = connect_coordinator(coordinator.address());
  v1::ListJobsRequest request;
  request.set_sweep_id(sweep);
  request.set_page_size(100);
  std::vector<std::string> ids;
  int pages = 0;
  do {
    v1::ListJobsResponse page;
    ASSERT_TRUE(stub->ListJobs(rpc_context().get(), request, &page).ok());
    EXPECT_LE(page.jobs_size(), 100);
    for (const auto& job : page.jobs()) ids.push_back(job.id());
    request.set_page_token(page.next_page_token());
    ++pages;
  } while (!request.page_token().empty());
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(ids.size(), all.size());
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], all[i].id()) << i;
  // The client's own loop gives the same list, with the default page size.
  const auto listed = list_all_jobs(*stub, sweep, {}, coordinator.address());
  EXPECT_EQ(listed.size(), all.size());
}

TEST(BoundedReplies, ListJobsFiltersStatesAcrossPages) {
  InProcessCoordinator coordinator("list-states");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("states", 30), "", "", false).sweep.id();
  const std::vector<v1::Job> all = coordinator.store().list_jobs(sweep);
  std::vector<std::string> cancel;
  for (std::size_t i = 0; i < all.size(); i += 3) cancel.push_back(all[i].id());
  ASSERT_EQ(coordinator.store().cancel(sweep, cancel), 10);
  auto stub = connect_coordinator(coordinator.address());
  v1::ListJobsRequest request;
  request.set_sweep_id(sweep);
  request.set_page_size(4);
  request.add_states(v1::JOB_STATE_CANCELLED);
  std::vector<std::string> ids;
  do {
    v1::ListJobsResponse page;
    ASSERT_TRUE(stub->ListJobs(rpc_context().get(), request, &page).ok());
    for (const auto& job : page.jobs()) {
      EXPECT_EQ(job.state(), v1::JOB_STATE_CANCELLED);
      ids.push_back(job.id());
    }
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());
  EXPECT_EQ(ids, cancel);
}

TEST(BoundedReplies, ListSweepsPagesOldestFirstWithoutTheirFiles) {
  InProcessCoordinator coordinator("list-sweeps");
  std::vector<std::string> created;
  for (int i = 0; i < 7; ++i) {
    created.push_back(coordinator.store()
                          .create_sweep(make_sweep("s" + std::to_string(i), 1), "name: big\n# " + std::string(5000, 'x'), "f.yaml", false)
                          .sweep.id());
  }
  auto stub = connect_coordinator(coordinator.address());
  v1::ListSweepsRequest request;
  request.set_page_size(3);
  std::vector<std::string> ids;
  int pages = 0;
  do {
    v1::ListSweepsResponse page;
    ASSERT_TRUE(stub->ListSweeps(rpc_context().get(), request, &page).ok());
    EXPECT_LE(page.sweeps_size(), 3);
    for (const auto& sweep : page.sweeps()) {
      EXPECT_TRUE(sweep.source_yaml().empty());
      ids.push_back(sweep.id());
    }
    request.set_page_token(page.next_page_token());
    ++pages;
  } while (!request.page_token().empty());
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(ids, created);
}

TEST(BoundedReplies, BadPageArgumentsAreRefusedNamingTheField) {
  InProcessCoordinator coordinator("list-bad-page");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("bad", 2), "", "", false).sweep.id();
  auto stub = connect_coordinator(coordinator.address());
  v1::ListJobsRequest request;
  request.set_sweep_id(sweep);
  request.set_page_size(limits::kMaxPageSize + 1);
  v1::ListJobsResponse page;
  grpc::Status status = stub->ListJobs(rpc_context().get(), request, &page);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "page_size: 5001 is outside 0..5000");
  request.set_page_size(0);
  request.set_page_token("x9");
  status = stub->ListJobs(rpc_context().get(), request, &page);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("page_token: 'x9'"), std::string::npos) << status.error_message();
}

TEST(BoundedReplies, WatchSweepSendsEveryJobOnceThenOnlyChanges) {
  InProcessCoordinator coordinator("watch-changes");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("watched", 40), "", "", false).sweep.id();
  const std::vector<v1::Job> all = coordinator.store().list_jobs(sweep);
  auto stub = connect_coordinator(coordinator.address());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::WatchSweepRequest request;
  request.set_sweep_id(sweep);
  auto reader = stub->WatchSweep(&context, request);
  v1::SweepUpdate update;
  ASSERT_TRUE(reader->Read(&update));
  EXPECT_TRUE(update.complete());
  ASSERT_EQ(update.jobs_size(), 40);
  for (const auto& job : update.jobs()) EXPECT_TRUE(job.config_json().empty()) << "watch updates carry no config";
  EXPECT_TRUE(update.sweep().source_yaml().empty());

  ASSERT_EQ(coordinator.store().cancel(sweep, {all[7].id()}), 1);
  ASSERT_TRUE(reader->Read(&update));
  EXPECT_TRUE(update.complete());
  ASSERT_EQ(update.jobs_size(), 1) << "only the cancelled job changed";
  EXPECT_EQ(update.jobs(0).id(), all[7].id());
  EXPECT_EQ(update.jobs(0).state(), v1::JOB_STATE_CANCELLED);
  context.TryCancel();
}

}  // namespace
}  // namespace gammalab::testing
