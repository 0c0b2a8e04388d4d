// Oversized fields and other spellings sent with valid tokens (server/request_limits.h): refused at the door
// with the field, its limit and its size, and nothing stored; lists stay readable whatever their rows weigh;
// a job id has one spelling, so the metric rate limit cannot be walked around.
#include <gtest/gtest.h>

#include "core/limits.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

std::unique_ptr<grpc::ClientContext> rpc_context() { return std::make_unique<grpc::ClientContext>(); }

TEST(HostileFields, AnOversizedHostNameOrGpuListIsRefusedAndNothingIsStored) {
  InProcessCoordinator c("hostile-register");
  auto gateway = v1::WorkerGateway::NewStub(c.own_channel());
  v1::RegisterWorkerRequest request;
  request.set_hostname(std::string(3 << 20, 'h'));
  request.set_slots(1);
  v1::RegisterWorkerResponse response;
  grpc::Status status = gateway->RegisterWorker(rpc_context().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "hostname: 3145728 bytes, over the limit of 255");

  request.set_hostname("node-1");
  for (int i = 0; i < 300'000; ++i) request.add_gpus("0");
  status = gateway->RegisterWorker(rpc_context().get(), request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "gpus: 300000 entries, over the limit of 1024");

  request.clear_gpus();
  request.add_gpus(std::string(129, 'g'));
  status = gateway->RegisterWorker(rpc_context().get(), request, &response);
  EXPECT_EQ(status.error_message(), "gpus[0]: 129 bytes, over the limit of 128");
  bool more = false;
  EXPECT_TRUE(c.store().list_workers_page(30'000, -1, 100, more).empty()) << "a refused worker was stored";

  request.clear_gpus();
  request.add_gpus("0");
  EXPECT_TRUE(gateway->RegisterWorker(rpc_context().get(), request, &response).ok()) << "a real one still registers";
}

TEST(HostileFields, AnOversizedSweepFileNameIsRefusedAndTheListStaysReadable) {
  InProcessCoordinator c("hostile-submit");
  auto coordinator = v1::Coordinator::NewStub(c.own_channel());
  v1::SubmitSweepRequest submit;
  submit.set_yaml("name: x\n");
  submit.set_file_name(std::string(3 << 20, 'f'));
  v1::SubmitSweepResponse submitted;
  const grpc::Status status = coordinator->SubmitSweep(rpc_context().get(), submit, &submitted);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "file_name: 3145728 bytes, over the limit of 1024");

  // Rows stored before the bound (or by any other way in) still page by bytes: 30 sweeps of ~100 KB each are
  // 3 MB, over a client's 4 MiB with the rest of a reply only because nothing cut the page.
  for (int i = 0; i < 30; ++i) {
    c.store().create_sweep(make_sweep("heavy" + std::to_string(i), 1), "", std::string(100'000, 'n'), false);
  }
  std::size_t seen = 0, pages = 0;
  v1::ListSweepsRequest list;
  list.set_page_size(limits::kMaxPageSize);
  do {
    v1::ListSweepsResponse page;
    ASSERT_TRUE(coordinator->ListSweeps(rpc_context().get(), list, &page).ok());
    EXPECT_LE(page.ByteSizeLong(), limits::kMaxReplyBytes);
    seen += static_cast<std::size_t>(page.sweeps_size());
    ++pages;
    list.set_page_token(page.next_page_token());
  } while (!list.page_token().empty());
  EXPECT_EQ(seen, 30u);
  EXPECT_GE(pages, 2u);
}

TEST(HostileFields, AJobIdHasOneSpellingSoTheMetricRateLimitHolds) {
  InProcessCoordinator c("hostile-job-ids");
  const std::string worker = c.store().register_worker("host", 1, {}, "", c.worker_token_id());
  c.store().create_sweep(make_sweep("ids", 1), "", "", false);
  const auto lease = c.store().lease(worker, 30'000);
  ASSERT_TRUE(lease);
  const std::string job = lease->job.id;
  ASSERT_TRUE(c.store().start(worker, job, lease->attempt));
  auto gateway = v1::WorkerGateway::NewStub(c.own_channel());
  auto report = [&](const std::string& id, std::int64_t step) {
    grpc::ClientContext context;
    v1::ReportMetricsResponse response;
    auto writer = gateway->ReportMetrics(&context, &response);
    v1::ReportMetricsRequest request;
    request.set_job_id(id);
    request.set_attempt(lease->attempt);
    auto* p = request.add_points();
    p->set_step(step);
    p->set_name("train/loss");
    p->set_value(2.0);
    writer->Write(request);
    writer->WritesDone();
    return writer->Finish();
  };
  std::string spelling = job;
  for (int i = 1; i <= 20; ++i) {
    spelling = "0" + spelling;
    const grpc::Status status = report(spelling, i);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND) << spelling;
    EXPECT_NE(status.error_message().find("job_id: '" + spelling + "': no such job"), std::string::npos)
        << status.error_message();
  }
  for (const std::string& other : std::vector<std::string>{"+" + job, " " + job, job + " ", "0x1", "-1"}) {
    EXPECT_EQ(report(other, 1).error_code(), grpc::StatusCode::NOT_FOUND) << other;
  }
  EXPECT_TRUE(c.store().metrics(job, {}).empty()) << "a point came in under another spelling";
  EXPECT_TRUE(report(job, 1).ok());
  EXPECT_EQ(c.store().metrics(job, {}).size(), 1u);
}

}  // namespace
}  // namespace gammalab::testing
