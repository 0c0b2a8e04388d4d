// Tokens over real gRPC and HTTP on loopback, with real tokens in a real SQLite file: the role of each service,
// missing, wrong and revoked tokens, and one worker token never acting for a worker of another.
#include <gtest/gtest.h>
#include <httplib.h>

#include <set>

#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

ClientSecurity with_token(const std::string& token) {
  ClientSecurity s;
  s.token = token;
  return s;
}

grpc::StatusCode list_workers(const std::string& address, const ClientSecurity& security) {
  auto stub = v1::Coordinator::NewStub(open_channel(address, security));
  grpc::ClientContext context;
  v1::ListWorkersResponse response;
  return stub->ListWorkers(&context, {}, &response).error_code();
}

grpc::StatusCode heartbeat(v1::WorkerGateway::Stub& stub, const std::string& worker_id,
                           const std::vector<std::pair<std::string, int>>& running = {}) {
  grpc::ClientContext context;
  v1::HeartbeatRequest request;
  request.set_worker_id(worker_id);
  for (const auto& [job, attempt] : running) {
    auto* r = request.add_running();
    r->set_job_id(job);
    r->set_attempt(attempt);
  }
  v1::HeartbeatResponse response;
  return stub.Heartbeat(&context, request, &response).error_code();
}

std::string register_worker(v1::WorkerGateway::Stub& stub, const std::string& hostname, grpc::StatusCode* code = nullptr,
                            const std::string& requested_id = "") {
  grpc::ClientContext context;
  v1::RegisterWorkerRequest request;
  request.set_hostname(hostname);
  request.set_slots(1);
  request.set_worker_id(requested_id);
  v1::RegisterWorkerResponse response;
  const grpc::Status status = stub.RegisterWorker(&context, request, &response);
  if (code) *code = status.error_code();
  return response.worker_id();
}

grpc::Status report(v1::WorkerGateway::Stub& stub, const std::string& job, int attempt, std::int64_t step) {
  grpc::ClientContext context;
  v1::ReportMetricsResponse response;
  auto writer = stub.ReportMetrics(&context, &response);
  v1::ReportMetricsRequest request;
  request.set_job_id(job);
  request.set_attempt(attempt);
  auto* p = request.add_points();
  p->set_step(step);
  p->set_tokens(step * 10);
  p->set_name("train/loss");
  p->set_value(2.5);
  writer->Write(request);
  writer->WritesDone();
  return writer->Finish();
}

TEST(Auth, EachServiceNeedsATokenOfItsRole) {
  InProcessCoordinator c("auth-roles");
  EXPECT_EQ(list_workers(c.address(), with_token(c.user_token())), grpc::StatusCode::OK);
  EXPECT_EQ(list_workers(c.address(), ClientSecurity{}), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(list_workers(c.address(), with_token("gl_1_" + std::string(64, '0'))), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(list_workers(c.address(), with_token(c.user_token() + "x")), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(list_workers(c.address(), with_token(c.worker_token())), grpc::StatusCode::PERMISSION_DENIED);

  auto as_user = v1::WorkerGateway::NewStub(open_channel(c.address(), with_token(c.user_token())));
  grpc::StatusCode code{};
  register_worker(*as_user, "h", &code);
  EXPECT_EQ(code, grpc::StatusCode::PERMISSION_DENIED);
  auto anonymous = v1::WorkerGateway::NewStub(open_channel(c.address(), ClientSecurity{}));
  register_worker(*anonymous, "h", &code);
  EXPECT_EQ(code, grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(c.store().list_workers(60000).empty()) << "a refused registration stores nothing";

  // A revoked token is refused from the next call on.
  const std::string other = c.tokens().create(Role::kUser, "revoked soon");
  EXPECT_EQ(list_workers(c.address(), with_token(other)), grpc::StatusCode::OK);
  const std::int64_t id = c.tokens().list().back().id;
  ASSERT_TRUE(c.tokens().revoke(id));
  EXPECT_EQ(list_workers(c.address(), with_token(other)), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_FALSE(c.tokens().revoke(id)) << "already revoked";
}

TEST(Auth, TokensAreStoredOnlyAsSaltedHashes) {
  InProcessCoordinator c("auth-hashes");
  const std::string a = c.tokens().create(Role::kWorker, "a");
  sql::Database db(c.db_path().string());
  sql::Statement s(db.handle(), "SELECT name, role, salt, hash FROM tokens");
  int rows = 0;
  std::set<std::string> salts;
  while (s.step()) {
    ++rows;
    for (int col = 0; col < 4; ++col) {
      EXPECT_EQ(s.text(col).find(a.substr(a.rfind('_') + 1)), std::string::npos) << "a secret in column " << col;
    }
    salts.insert(s.text(2));
  }
  EXPECT_EQ(rows, 3);
  EXPECT_EQ(salts.size(), 3u) << "one salt per token";
  for (const TokenInfo& t : c.tokens().list()) EXPECT_FALSE(t.revoked_ms);
}

// One worker token registers at most --max-workers-per-token live workers: the next registration is refused with
// RESOURCE_EXHAUSTED naming the count and the flag; a known worker re-registering and another token's workers
// are not affected. (1,200 registrations from one token once made the workers list answer 160 MB.)
TEST(Auth, OneWorkerTokenRegistersAtMostItsBoundOfLiveWorkers) {
  InProcessCoordinator c("auth-worker-bound", [](ServerOptions& o) { o.max_workers_per_token = 5; });
  auto greedy = v1::WorkerGateway::NewStub(open_channel(c.address(), c.worker_security()));
  std::vector<std::string> ids;
  for (int i = 0; i < 5; ++i) {
    grpc::StatusCode code{};
    ids.push_back(register_worker(*greedy, "host-" + std::to_string(i), &code));
    ASSERT_EQ(code, grpc::StatusCode::OK) << i;
  }
  for (int i = 0; i < 50; ++i) {
    grpc::ClientContext context;
    v1::RegisterWorkerRequest request;
    request.set_hostname("one-more");
    request.set_slots(1);
    v1::RegisterWorkerResponse response;
    const grpc::Status status = greedy->RegisterWorker(&context, request, &response);
    ASSERT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << i;
    EXPECT_NE(status.error_message().find("has 5 live workers, the limit (--max-workers-per-token 5)"),
              std::string::npos)
        << status.error_message();
  }
  grpc::StatusCode code{};
  EXPECT_EQ(register_worker(*greedy, "host-0", &code, ids[0]), ids[0]) << "a known worker re-registers";
  EXPECT_EQ(code, grpc::StatusCode::OK);
  ClientSecurity other = with_token(c.tokens().create(Role::kWorker, "another machine"));
  auto polite = v1::WorkerGateway::NewStub(open_channel(c.address(), other));
  EXPECT_FALSE(register_worker(*polite, "elsewhere", &code).empty());
  EXPECT_EQ(code, grpc::StatusCode::OK);
  EXPECT_EQ(c.store().list_workers(100000).size(), 6u);
}

TEST(Auth, AWorkerTokenActsOnlyForItsOwnWorkersAndLeases) {
  InProcessCoordinator c("auth-workers");
  const std::string sweep = c.store().create_sweep(make_sweep("auth-workers", 1), "", "", false).sweep.id;
  ClientSecurity a = with_token(c.tokens().create(Role::kWorker, "worker a"));
  ClientSecurity b = with_token(c.tokens().create(Role::kWorker, "worker b"));
  auto stub_a = v1::WorkerGateway::NewStub(open_channel(c.address(), a));
  auto stub_b = v1::WorkerGateway::NewStub(open_channel(c.address(), b));
  const std::string wa = register_worker(*stub_a, "host-a");
  const std::string wb = register_worker(*stub_b, "host-b");
  ASSERT_FALSE(wa.empty());
  ASSERT_FALSE(wb.empty());

  v1::LeaseJobResponse lease;
  {
    grpc::ClientContext context;
    v1::LeaseJobRequest request;
    request.set_worker_id(wa);
    ASSERT_TRUE(stub_a->LeaseJob(&context, request, &lease).ok());
    ASSERT_TRUE(lease.has_job());
  }
  const std::string job = lease.job().id();
  const int attempt = lease.attempt();

  // B cannot act as A: not heartbeat, lease, start, finish, report for its job, nor take over its id.
  EXPECT_EQ(heartbeat(*stub_b, wa, {{job, attempt}}), grpc::StatusCode::PERMISSION_DENIED);
  {
    grpc::ClientContext context;
    v1::LeaseJobRequest request;
    request.set_worker_id(wa);
    v1::LeaseJobResponse response;
    EXPECT_EQ(stub_b->LeaseJob(&context, request, &response).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  {
    grpc::ClientContext context;
    v1::StartJobRequest request;
    request.set_worker_id(wa);
    request.set_job_id(job);
    request.set_attempt(attempt);
    v1::StartJobResponse response;
    EXPECT_EQ(stub_b->StartJob(&context, request, &response).error_code(), grpc::StatusCode::PERMISSION_DENIED);
  }
  for (const std::string& as : {wa, wb}) {
    grpc::ClientContext context;
    v1::FinishJobRequest request;
    request.set_worker_id(as);
    request.set_job_id(job);
    request.set_attempt(attempt);
    request.set_outcome(v1::JOB_OUTCOME_FAILED);
    v1::FinishJobResponse response;
    const grpc::Status status = stub_b->FinishJob(&context, request, &response);
    if (as == wa) {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED);
    } else {
      EXPECT_TRUE(status.ok());
      EXPECT_FALSE(response.accepted()) << "B's own worker does not hold the job";
    }
  }
  const grpc::Status injected = report(*stub_b, job, attempt, 1);
  EXPECT_EQ(injected.error_code(), grpc::StatusCode::PERMISSION_DENIED) << injected.error_message();
  grpc::StatusCode code{};
  EXPECT_EQ(register_worker(*stub_b, "host-b", &code, wa), "");
  EXPECT_EQ(code, grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_TRUE(c.store().metrics(job, {}).empty()) << "nothing B sent was stored";

  // Meanwhile A holds its lease, and its reports are fenced by attempt.
  EXPECT_EQ(heartbeat(*stub_a, wa, {{job, attempt}}), grpc::StatusCode::OK);
  EXPECT_EQ(report(*stub_a, job, attempt + 1, 1).error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(c.store().metrics(job, {}).empty()) << "a stale attempt's points are not stored";
  EXPECT_TRUE(report(*stub_a, job, attempt, 1).ok());
  EXPECT_EQ(c.store().metrics(job, {}).size(), 1u);
  EXPECT_EQ(register_worker(*stub_a, "host-a", &code, wa), wa) << "A re-registers under its own id";
  const auto held = c.store().find_job(job);
  ASSERT_TRUE(held);
  EXPECT_EQ(held->worker_id, wa);
  EXPECT_EQ(held->attempt, attempt);
}

// The HTTP API: 401 without a valid user token or session, 403 for a worker token; a dashboard session from
// POST /api/session, ended by its token's revocation.
TEST(Auth, HttpApiNeedsAUserTokenOrASession) {
  InProcessCoordinator c("auth-http");
  ServerOptions options;
  options.http_address = "127.0.0.1:0";
  HttpApi api(c.store(), options, &c.tokens());
  httplib::Client http("127.0.0.1", api.port());
  auto get = [&](const httplib::Headers& headers) {
    auto res = http.Get("/api/sweeps", headers);
    return res ? res->status : -1;
  };
  auto bearer = [](const std::string& t) { return httplib::Headers{{"Authorization", "Bearer " + t}}; };
  EXPECT_EQ(get({}), 401);
  EXPECT_EQ(get(bearer("nonsense")), 401);
  EXPECT_EQ(get(bearer(c.worker_token())), 403);
  EXPECT_EQ(get(bearer(c.user_token())), 200);
  EXPECT_EQ(http.Get("/api/events")->status, 401);
  // The health check needs no token and says nothing but that the store answered.
  auto health = http.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(health->body, R"({"ok":true})");
  // The job view's routes, and its two write actions, are behind the same check.
  const std::string sweep = c.store().create_sweep(make_sweep("auth-http", 1), "", "", false).sweep.id;
  const std::string job = c.store().list_jobs(sweep).at(0).id;
  for (const std::string route : {"events", "log", "checkpoints"}) {
    const std::string path = "/api/jobs/" + job + "/" + route;
    EXPECT_EQ(http.Get(path)->status, 401) << path;
    EXPECT_EQ(http.Get(path, bearer(c.worker_token()))->status, 403) << path;
    EXPECT_EQ(http.Get(path, bearer(c.user_token()))->status, 200) << path;
  }
  for (const std::string action : {"cancel", "retry"}) {
    const std::string path = "/api/jobs/" + job + "/" + action;
    EXPECT_EQ(http.Post(path, "", "text/plain")->status, 401) << path;
    EXPECT_EQ(http.Post(path, bearer(c.worker_token()), "", "text/plain")->status, 403) << path;
  }
  EXPECT_EQ(c.store().find_job(job)->state, JobState::kPending) << "refused requests changed nothing";
  auto foreign = http.Post("/api/jobs/" + job + "/cancel",
                           httplib::Headers{{"Authorization", "Bearer " + c.user_token()}, {"Origin", "http://evil.example"}},
                           "", "text/plain");
  EXPECT_EQ(foreign->status, 403) << "a write from another origin's page, even with a token";
  EXPECT_EQ(c.store().find_job(job)->state, JobState::kPending);
  EXPECT_EQ(http.Post("/api/jobs/" + job + "/cancel", bearer(c.user_token()), "", "text/plain")->status, 200);
  EXPECT_EQ(c.store().find_job(job)->state, JobState::kCancelled);
  EXPECT_EQ(http.Post("/api/jobs/" + job + "/retry", bearer(c.user_token()), "", "text/plain")->status, 200);
  EXPECT_EQ(c.store().find_job(job)->state, JobState::kPending);

  const std::string token = c.tokens().create(Role::kUser, "browser");
  auto refused = http.Post("/api/session", bearer(c.worker_token()), "", "text/plain");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 403);
  EXPECT_FALSE(refused->has_header("Set-Cookie"));
  auto opened = http.Post("/api/session", bearer(token), "", "text/plain");
  ASSERT_TRUE(opened);
  ASSERT_EQ(opened->status, 200);
  const std::string set_cookie = opened->get_header_value("Set-Cookie");
  EXPECT_NE(set_cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(set_cookie.find("SameSite=Strict"), std::string::npos);
  EXPECT_EQ(set_cookie.find(token), std::string::npos) << "the cookie holds a session id, not the token";
  const std::string cookie = set_cookie.substr(0, set_cookie.find(';'));
  EXPECT_EQ(get({{"Cookie", cookie}}), 200);
  EXPECT_EQ(get({{"Cookie", cookie + "0"}}), 401);
  ASSERT_TRUE(c.tokens().revoke(c.tokens().list().back().id));
  EXPECT_EQ(get({{"Cookie", cookie}}), 401) << "revoking the token ends its sessions";
  EXPECT_EQ(http.Get("/api/meta")->status, 401);
}

}  // namespace
}  // namespace gammalab::testing
