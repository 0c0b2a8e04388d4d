// The application layer behind both doors (server/coordinator/coordinator.h): the gRPC service and the HTTP
// API, over one real store on loopback ports, page a list the same way and refuse a request with the same
// words; and the one page cursor (server/coordinator/page.h) takes only tokens of its list's shape.
#include <httplib.h>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/client/coordinator_client.h"
#include "rpc/client_channel.h"
#include "server/coordinator/page.h"
#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

using nlohmann::json;

class BothDoors : public ::testing::Test {
 protected:
  void SetUp() override {
    http_options_.http_address = "127.0.0.1:0";
    http_options_.shared_root = coordinator_.db_path().parent_path() / "shared";
    http_ = std::make_unique<HttpApi>(coordinator_.store(), http_options_);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", http_->port());
    stub_ = connect_coordinator(coordinator_.address());
    sweep_ =
        coordinator_.store().create_sweep(make_sweep("doors", 7), "name: doors", "doors.yaml", false).sweep.id;
  }

  // GET over HTTP: the status, the JSON body, and the next page's token (X-Next-Page-Token).
  struct Answer {
    int status = 0;
    json body;
    std::string next;
  };
  Answer get(const std::string& path) {
    auto res = client_->Get(path.c_str());
    EXPECT_TRUE(res) << path;
    if (!res) return {};
    return {res->status, json::parse(res->body), res->get_header_value("X-Next-Page-Token")};
  }
  std::string http_error(const std::string& path, int status) {
    const Answer a = get(path);
    EXPECT_EQ(a.status, status) << path << ": " << a.body.dump();
    return a.body.value("error", "");
  }

  InProcessCoordinator coordinator_{"both-doors"};
  ServerOptions http_options_;
  std::unique_ptr<HttpApi> http_;
  std::unique_ptr<httplib::Client> client_;
  std::unique_ptr<v1::Coordinator::Stub> stub_;
  std::string sweep_;
};

TEST_F(BothDoors, PageAListTheSameWayWithTheSameTokens) {
  std::vector<std::string> grpc_ids, grpc_tokens, http_ids, http_tokens;
  v1::ListJobsRequest request;
  request.set_sweep_id(sweep_);
  request.set_page_size(3);
  do {
    v1::ListJobsResponse page;
    ASSERT_TRUE(stub_->ListJobs(rpc_context().get(), request, &page).ok());
    EXPECT_LE(page.jobs_size(), 3);
    for (const v1::Job& job : page.jobs()) grpc_ids.push_back(job.id());
    grpc_tokens.push_back(page.next_page_token());
    request.set_page_token(page.next_page_token());
  } while (!request.page_token().empty());

  std::string token;
  do {
    const Answer page = get("/api/sweeps/" + sweep_ + "/jobs?page_size=3&page_token=" + token);
    ASSERT_EQ(page.status, 200) << page.body.dump();
    EXPECT_LE(page.body.size(), 3u);
    for (const json& job : page.body) http_ids.push_back(job["id"]);
    http_tokens.push_back(page.next);
    token = page.next;
  } while (!token.empty());

  EXPECT_EQ(grpc_ids.size(), 7u);
  EXPECT_EQ(http_ids, grpc_ids);
  EXPECT_EQ(http_tokens, grpc_tokens);
  EXPECT_EQ(grpc_tokens.size(), 3u) << "3 + 3 + 1";
  // Without page_size or page_token the dashboard's table is whole, and says of no next page.
  const Answer whole = get("/api/sweeps/" + sweep_ + "/jobs");
  EXPECT_EQ(whole.body.size(), 7u);
  EXPECT_TRUE(whole.next.empty());
  // The runs table pages as the jobs do.
  const Answer runs = get("/api/sweeps/" + sweep_ + "/runs?page_size=5");
  EXPECT_EQ(runs.body.size(), 5u);
  EXPECT_EQ(runs.next, get("/api/sweeps/" + sweep_ + "/jobs?page_size=5").next);
  EXPECT_FALSE(runs.next.empty());
}

TEST_F(BothDoors, RefuseWithTheSameWords) {
  auto grpc_error = [](const grpc::Status& status, grpc::StatusCode code) {
    EXPECT_EQ(status.error_code(), code) << status.error_message();
    return status.error_message();
  };
  v1::ListJobsRequest list;
  list.set_sweep_id(sweep_);
  v1::ListJobsResponse jobs;

  list.set_page_size(limits::kMaxPageSize + 1);
  const std::string too_large =
      grpc_error(stub_->ListJobs(rpc_context().get(), list, &jobs), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(too_large, "page_size: 5001 is outside 0..5000");
  EXPECT_EQ(http_error("/api/sweeps/" + sweep_ + "/jobs?page_size=5001", 400), too_large);
  EXPECT_EQ(http_error("/api/workers?page_size=5001", 400), too_large);

  list.set_page_size(0);
  list.set_page_token("x9");
  const std::string foreign =
      grpc_error(stub_->ListJobs(rpc_context().get(), list, &jobs), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(foreign, "page_token: 'x9' is not a token from a previous page");
  EXPECT_EQ(http_error("/api/sweeps/" + sweep_ + "/runs?page_token=x9", 400), foreign);
  EXPECT_EQ(http_error("/api/sweeps?page_token=x9", 400), foreign);

  v1::GetSweepRequest missing;
  missing.set_sweep_id("nowhere");
  v1::Sweep sweep;
  const std::string not_found =
      grpc_error(stub_->GetSweep(rpc_context().get(), missing, &sweep), grpc::StatusCode::NOT_FOUND);
  EXPECT_EQ(not_found, "sweep 'nowhere' not found");
  EXPECT_EQ(http_error("/api/sweeps/nowhere", 404), not_found);
  EXPECT_EQ(http_error("/api/sweeps/nowhere/metrics", 404), not_found);

  // A pending job cannot be retried: FAILED_PRECONDITION through gRPC, 409 through HTTP, the same sentence.
  const std::string job = coordinator_.store().list_jobs(sweep_).front().id;
  v1::RetryJobRequest retry;
  retry.set_job_id(job);
  v1::Job retried;
  const std::string refusal =
      grpc_error(stub_->RetryJob(rpc_context().get(), retry, &retried), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_NE(refusal.find(job), std::string::npos) << refusal;
  auto res = client_->Post(("/api/jobs/" + job + "/retry").c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 409);
  EXPECT_EQ(json::parse(res->body)["error"], refusal);
}

TEST(PageCursor, TakesOnlyTokensOfItsListsShape) {
  using coordinator::CursorShape;
  using coordinator::page_cursor;
  const CursorShape metrics{.numbers = 2, .min_number = -1, .text = true};
  // A metric name may itself hold ':': it is the token's last part, taken whole.
  const coordinator::PageCursor at{{3, 250}, "eval:ppl/x"};
  const auto back = page_cursor(at.token(), metrics);
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_TRUE(back->has_value());
  EXPECT_EQ((*back)->numbers, (std::vector<std::int64_t>{3, 250}));
  EXPECT_EQ((*back)->text, "eval:ppl/x");
  EXPECT_FALSE(page_cursor("", metrics)->has_value()) << "no token: from the start";

  const std::vector<std::string> foreign{"x",     "1",      "1:2",   "-2:0:a", "1:-2:a", "1:9223372036854775808:a",
                                        "1:x:a", "1:2:" + std::string(limits::kMaxKeyBytes + 1, 'n')};
  for (const std::string& token : foreign) {
    const auto refused = page_cursor(token, metrics);
    ASSERT_FALSE(refused.ok()) << token;
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(refused.status().message()).rfind("page_token: '", 0), 0u) << refused.status();
  }
  for (const std::string token : {"-1", "1:2", "a", "1a"}) EXPECT_FALSE(page_cursor(token, {}).ok()) << token;
  EXPECT_EQ((*page_cursor("42", {}))->numbers, std::vector<std::int64_t>{42});

  EXPECT_EQ(*coordinator::page_size(0, coordinator::kRowPages), static_cast<std::size_t>(limits::kDefaultPageSize));
  EXPECT_EQ(coordinator::page_size(-1, coordinator::kVersionPages).status().message(),
            "page_size: -1 is outside 0..100");
}

}  // namespace
}  // namespace gammalab::testing
