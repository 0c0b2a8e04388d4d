// Replies do not grow with the sweep, its curves, its refits or the cluster's history: ListJobs and ListWorkers
// pages (every job and worker once, in order, states filtered across pages, bad page arguments refused naming
// the field), GetMetrics pages (every point once, by points and by bytes, across metrics and jobs), GetFits
// pages (whole versions, by versions and by bytes), WatchSweep sends each round's changed jobs only, and watches
// are bounded per client.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <thread>
#include <vector>

#include "cli/client/coordinator_client.h"
#include "core/limits.h"
#include "core/sweep/config_hash.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

TEST(BoundedReplies, ListJobsPagesEveryJobOnceInOrder) {
  InProcessCoordinator coordinator("list-pages");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("paged", 250), "", "", false).sweep.id;
  const std::vector<JobRecord> all = coordinator.store().list_jobs(sweep);
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
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(ids[i], all[i].id) << i;
  // The client's own loop gives the same list, with the default page size.
  const auto listed = list_all_jobs(*stub, sweep, {}, coordinator.address());
  EXPECT_EQ(listed.size(), all.size());
}

TEST(BoundedReplies, ListJobsFiltersStatesAcrossPages) {
  InProcessCoordinator coordinator("list-states");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("states", 30), "", "", false).sweep.id;
  const std::vector<JobRecord> all = coordinator.store().list_jobs(sweep);
  std::vector<std::string> cancel;
  for (std::size_t i = 0; i < all.size(); i += 3) cancel.push_back(all[i].id);
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
                          .sweep.id);
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
  const std::string sweep = coordinator.store().create_sweep(make_sweep("bad", 2), "", "", false).sweep.id;
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

// Two jobs with points: the first 60,000 steps of train/loss and 600 of val/loss, the second 100 steps; a
// third has none. Returns their ids.
std::vector<std::string> jobs_with_curves(InProcessCoordinator& coordinator) {
  Sweep spec = make_sweep("curves", 3);
  for (SweepJob& job : spec.jobs) {
    job.config.steps = 60000;
    job.config_hash = config_hash(job.config);
  }
  Store& store = coordinator.store();
  const std::string sweep = store.create_sweep(spec, "", "", false).sweep.id;
  const std::string worker = store.register_worker("host", 3, {"gpu0", "gpu1", "gpu2"}, "");
  std::vector<std::string> ids;
  for (const std::int64_t steps : {60000, 100, 0}) {
    auto lease = store.lease(worker, 60000);
    EXPECT_TRUE(lease);
    store.start(worker, lease->job.id, lease->attempt);
    std::vector<MetricPoint> points;
    for (std::int64_t s = 1; s <= steps; ++s) {
      points.push_back({s, s * 4096, "train/loss", 3.0 + 1.0 / double(s)});
      if (s % 100 == 0) points.push_back({s, s * 4096, "val/loss", 3.1});
      if (points.size() == 10000 || s == steps) {
        store.add_metrics(lease->job.id, lease->attempt, points);
        points.clear();
      }
    }
    ids.push_back(lease->job.id);
  }
  return ids;
}

// (job, name, step) of every point, in the order the reply gives them.
using PointKey = std::tuple<std::string, std::string, std::int64_t>;

TEST(BoundedReplies, GetMetricsPagesEveryPointOnceAcrossMetricsAndJobs) {
  InProcessCoordinator coordinator("metric-pages");
  const std::vector<std::string> jobs = jobs_with_curves(coordinator);
  std::vector<PointKey> expected;
  for (const std::string& job : jobs) {
    for (const MetricPoint& p : coordinator.store().metrics(job, {})) expected.emplace_back(job, p.name, p.step);
  }
  ASSERT_EQ(expected.size(), 60000u + 600u + 100u + 1u);
  auto stub = connect_coordinator(coordinator.address());

  // By points: pages of at most 1,000, ending inside a metric, between metrics and between jobs.
  for (const int page_size : {1000, 601, limits::kMaxMetricPageSize}) {
    v1::GetMetricsRequest request;
    for (const std::string& job : jobs) request.add_job_ids(job);
    request.set_after_step(-1);
    request.set_page_size(page_size);
    std::vector<PointKey> got;
    int pages = 0;
    do {
      v1::GetMetricsResponse page;
      ASSERT_TRUE(stub->GetMetrics(rpc_context().get(), request, &page).ok()) << page_size;
      ASSERT_LE(page.ByteSizeLong(), limits::kMaxReplyBytes) << "page " << pages;
      std::size_t points = 0;
      for (const auto& job : page.jobs()) {
        for (const auto& p : job.points()) got.emplace_back(job.job_id(), p.name(), p.step());
        points += static_cast<std::size_t>(job.points_size());
      }
      EXPECT_LE(points, static_cast<std::size_t>(page_size));
      request.set_page_token(page.next_page_token());
      ASSERT_LT(++pages, 200) << "the pages never end";
    } while (!request.page_token().empty());
    EXPECT_EQ(got, expected) << "page_size " << page_size;
    if (page_size == 1000) {
      EXPECT_EQ(pages, 61);
    }
    if (page_size == limits::kMaxMetricPageSize) {  // cut by bytes: 60,701 points are over 2 MiB by the count
      EXPECT_GE(pages, 2);
    }
  }

  // The CLI's loop: one job's every point, in order; and a job without points.
  const std::vector<MetricPoint> first = fetch_job_metrics(*stub, jobs[0], {}, coordinator.address());
  const std::vector<MetricPoint> stored = coordinator.store().metrics(jobs[0], {});
  ASSERT_EQ(first.size(), stored.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    ASSERT_EQ(first[i].name, stored[i].name);
    ASSERT_EQ(first[i].step, stored[i].step);
    ASSERT_EQ(first[i].tokens, stored[i].tokens);
    ASSERT_EQ(first[i].value, stored[i].value);
  }
  EXPECT_EQ(fetch_job_metrics(*stub, jobs[0], {"val/loss"}, coordinator.address()).size(), 600u);
  EXPECT_TRUE(fetch_job_metrics(*stub, jobs[2], {}, coordinator.address()).empty());
}

TEST(BoundedReplies, BadMetricsRequestsAreRefusedNamingTheField) {
  InProcessCoordinator coordinator("metric-bad-page");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("bad", 1), "", "", false).sweep.id;
  const std::string job = coordinator.store().list_jobs(sweep)[0].id;
  auto stub = connect_coordinator(coordinator.address());
  auto refused = [&](const v1::GetMetricsRequest& request) {
    v1::GetMetricsResponse page;
    const grpc::Status status = stub->GetMetrics(rpc_context().get(), request, &page);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
    return status.error_message();
  };
  v1::GetMetricsRequest request;
  request.add_job_ids(job);
  request.set_page_size(limits::kMaxMetricPageSize + 1);
  EXPECT_EQ(refused(request), "page_size: 200001 is outside 0..200000");
  request.set_page_size(-1);
  EXPECT_EQ(refused(request), "page_size: -1 is outside 0..200000");
  request.set_page_size(0);
  for (const std::string& token : std::vector<std::string>{"x", "1:-1:", "-1:-1:", "0:-2:", "0:1", "0:9223372036854775808:train/loss",
                                  "0:1:" + std::string(200, 'n')}) {
    request.set_page_token(token);
    EXPECT_EQ(refused(request).rfind("page_token: '", 0), 0u) << token;
  }
  request.set_page_token("");
  v1::GetMetricsRequest many = request;
  for (std::size_t i = 0; i < limits::kMaxMetricJobIds; ++i) many.add_job_ids(job);
  EXPECT_EQ(refused(many), "job_ids: 10001 entries, over the limit of 10000");
  many = request;
  for (std::size_t i = 0; i <= limits::kMaxMetricNames; ++i) many.add_names("train/loss");
  EXPECT_EQ(refused(many), "names: 1001 entries, over the limit of 1000");
  // A token of a previous page is only a position: a job's first page from one is well-formed and empty.
  request.set_page_token("0:5:train/loss");
  v1::GetMetricsResponse page;
  ASSERT_TRUE(stub->GetMetrics(rpc_context().get(), request, &page).ok());
  EXPECT_TRUE(page.next_page_token().empty());
}

TEST(BoundedReplies, GetFitsPagesTheHistoryByVersionsAndBytes) {
  InProcessCoordinator coordinator("fit-pages");
  Store& store = coordinator.store();
  const std::string sweep = store.create_sweep(make_sweep("fits", 1), "", "", false).sweep.id;
  // 30 versions of two laws each; reports of 300 KB, so that 2 MiB holds 6 versions and a page of 10 is cut.
  const std::string report = "{\"pad\":\"" + std::string(300'000, 'x') + "\"}";
  for (int v = 1; v <= 30; ++v) store.add_fit(sweep, "scale.variant", {"1"}, {{"n", report}, {"c", "{}"}});
  auto stub = connect_coordinator(coordinator.address());
  v1::GetFitsRequest request;
  request.set_sweep_id(sweep);
  std::vector<int> versions;
  int pages = 0;
  do {
    v1::GetFitsResponse page;
    ASSERT_TRUE(stub->GetFits(rpc_context().get(), request, &page).ok());
    EXPECT_LE(page.ByteSizeLong(), limits::kMaxReplyBytes);
    ASSERT_GT(page.fits_size(), 0);
    ASSERT_EQ(page.fits_size() % 2, 0) << "a version's laws stay together";
    for (int i = 0; i < page.fits_size(); i += 2) {
      EXPECT_EQ(page.fits(i).version(), page.fits(i + 1).version());
      EXPECT_EQ(page.fits(i).law(), "n");
      versions.push_back(page.fits(i).version());
    }
    request.set_page_token(page.next_page_token());
    ASSERT_LT(++pages, 40);
  } while (!request.page_token().empty());
  std::vector<int> expected;
  for (int v = 30; v >= 1; --v) expected.push_back(v);
  EXPECT_EQ(versions, expected);
  EXPECT_EQ(pages, 5) << "cut by bytes at 6 versions, not at the 10 versions a page";

  request.set_latest_only(true);
  request.set_page_token("");
  v1::GetFitsResponse latest;
  ASSERT_TRUE(stub->GetFits(rpc_context().get(), request, &latest).ok());
  ASSERT_EQ(latest.fits_size(), 2);
  EXPECT_EQ(latest.fits(0).version(), 30);
  EXPECT_TRUE(latest.next_page_token().empty());

  request.set_latest_only(false);
  for (const std::string& token : std::vector<std::string>{"x", "0", "-3", "99999999999"}) {
    request.set_page_token(token);
    v1::GetFitsResponse page;
    const grpc::Status status = stub->GetFits(rpc_context().get(), request, &page);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << token;
    EXPECT_EQ(status.error_message().rfind("page_token: '", 0), 0u) << status.error_message();
  }
  request.set_page_token("");
  request.set_page_size(101);
  v1::GetFitsResponse page;
  EXPECT_EQ(stub->GetFits(rpc_context().get(), request, &page).error_message(), "page_size: 101 is outside 0..100");
}

TEST(BoundedReplies, ListWorkersPagesEveryWorkerThatRegistered) {
  // A cluster where worker processes come and go (Slurm jobs, pods): each start registers a new worker.
  InProcessCoordinator coordinator("worker-pages");
  std::vector<std::string> registered;
  for (int i = 0; i < 1234; ++i) {
    registered.push_back(coordinator.store().register_worker("node" + std::to_string(i % 40), 8, {}, ""));
  }
  auto stub = connect_coordinator(coordinator.address());
  v1::ListWorkersRequest request;
  std::vector<std::string> ids;
  int pages = 0;
  do {
    v1::ListWorkersResponse page;
    ASSERT_TRUE(stub->ListWorkers(rpc_context().get(), request, &page).ok());
    EXPECT_LE(page.workers_size(), limits::kDefaultPageSize);
    for (const auto& worker : page.workers()) ids.push_back(worker.id());
    request.set_page_token(page.next_page_token());
    ASSERT_LT(++pages, 10);
  } while (!request.page_token().empty());
  EXPECT_EQ(pages, 3) << "500 a page by default";
  EXPECT_EQ(ids, registered) << "every worker once, oldest first";
  const std::vector<v1::Worker> listed = list_all_workers(*stub, coordinator.address());
  ASSERT_EQ(listed.size(), registered.size());
  EXPECT_EQ(listed.back().hostname(), "node33");
  request.set_page_token("");
  request.set_page_size(limits::kMaxPageSize + 1);
  v1::ListWorkersResponse page;
  EXPECT_EQ(stub->ListWorkers(rpc_context().get(), request, &page).error_message(),
            "page_size: 5001 is outside 0..5000");
}

TEST(BoundedReplies, WatchSweepSendsEveryJobOnceThenOnlyChanges) {
  InProcessCoordinator coordinator("watch-changes");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("watched", 40), "", "", false).sweep.id;
  const std::vector<JobRecord> all = coordinator.store().list_jobs(sweep);
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

  ASSERT_EQ(coordinator.store().cancel(sweep, {all[7].id}), 1);
  ASSERT_TRUE(reader->Read(&update));
  EXPECT_TRUE(update.complete());
  ASSERT_EQ(update.jobs_size(), 1) << "only the cancelled job changed";
  EXPECT_EQ(update.jobs(0).id(), all[7].id);
  EXPECT_EQ(update.jobs(0).state(), v1::JOB_STATE_CANCELLED);
  context.TryCancel();
}

TEST(BoundedReplies, WatchesAreBoundedPerClientAndGiveTheirSlotBackWhenTheyEnd) {
  InProcessCoordinator coordinator("watch-bound");
  const std::string sweep = coordinator.store().create_sweep(make_sweep("watched", 2), "", "", false).sweep.id;
  auto stub = connect_coordinator(coordinator.address());
  v1::WatchSweepRequest request;
  request.set_sweep_id(sweep);
  struct Watch {
    std::unique_ptr<grpc::ClientContext> context = std::make_unique<grpc::ClientContext>();
    std::unique_ptr<grpc::ClientReader<v1::SweepUpdate>> reader;
  };
  // Opens a watch and reads its first update: true when the coordinator took it.
  auto open = [&](Watch& watch) {
    watch.context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    watch.reader = stub->WatchSweep(watch.context.get(), request);
    v1::SweepUpdate update;
    return watch.reader->Read(&update);
  };
  std::vector<Watch> watches(limits::kMaxWatchesPerClient);
  for (Watch& watch : watches) ASSERT_TRUE(open(watch));
  Watch refused;
  EXPECT_FALSE(open(refused));
  const grpc::Status status = refused.reader->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(status.error_message(), "too many open watches: at most 16 per client address, 64 per token and 256 in "
                                    "all; close others or retry later");
  // A watch that ends gives its slot back (the coordinator notices the cancellation at its next round).
  watches[0].context->TryCancel();
  watches[0].reader->Finish();
  bool reopened = false;
  for (int tries = 0; tries < 100 && !reopened; ++tries) {
    Watch again;
    reopened = open(again);
    if (!reopened) {
      again.reader->Finish();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    } else {
      again.context->TryCancel();
      again.reader->Finish();
    }
  }
  EXPECT_TRUE(reopened) << "the slot of the cancelled watch came back";
  for (std::size_t i = 1; i < watches.size(); ++i) {
    watches[i].context->TryCancel();
    watches[i].reader->Finish();
  }
}

}  // namespace
}  // namespace gammalab::testing
