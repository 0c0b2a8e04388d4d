#pragma once
// The coordinator's gRPC services on a real loopback port inside the test process, over a real SQLite file,
// with real tokens: it makes a user and a worker token, and every channel it hands out (own_channel, and
// connect_coordinator through default_client_security) sends the user token to the Coordinator service and
// the worker token to the WorkerGateway. A WorkerDaemon in a test gets worker_security(). $GAMMALAB_TOKEN is
// set to the user token, so a CLI process the test starts gets in too.
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "rpc/client_channel.h"
#include "server/coordinator_service.h"
#include "server/grpc_auth.h"
#include "server/grpc_listener.h"
#include "server/tokens.h"
#include "server/worker_gateway_service.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {

class InProcessCoordinator {
 public:
  // `configure` may change the options (a lower limit, say) before the services are made from them.
  explicit InProcessCoordinator(const std::string& name, const std::function<void(ServerOptions&)>& configure = {})
      : db_path_(temp_db(name)), store_(db_path_.string()), options_(options_for(db_path_, configure)) {
    security_.token = tokens_->create(Role::kUser, "test user");
    security_.gateway_token = tokens_->create(Role::kWorker, "test worker");
    worker_token_id_ = tokens_->list().back().id;
    set_default_client_security(security_);
    ::setenv(kTokenEnv, security_.token.c_str(), 1);
    server_ = start_grpc_server("--listen", "127.0.0.1:0", {&coordinator_, &gateway_}, port_,
                                grpc_server_credentials(options_, tokens_));
  }
  ~InProcessCoordinator() {
    server_->Shutdown();
    std::filesystem::remove_all(db_path_.parent_path());
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  Store& store() { return store_; }
  Tokens& tokens() { return *tokens_; }
  // Shared with the token check, which gRPC may still run after this coordinator is gone.
  const std::shared_ptr<Tokens>& shared_tokens() const { return tokens_; }
  const std::string& user_token() const { return security_.token; }
  const std::string& worker_token() const { return security_.gateway_token; }
  // For a worker registered straight in the store whose leases a test then reports for over gRPC:
  // store().register_worker(host, slots, gpus, "", worker_token_id()).
  std::int64_t worker_token_id() const { return worker_token_id_; }
  // What a worker daemon connects with: the worker token.
  ClientSecurity worker_security() const {
    ClientSecurity worker;
    worker.token = security_.gateway_token;
    return worker;
  }
  const WorkerGatewayService& gateway() const { return gateway_; }
  const CoordinatorService& coordinator() const { return coordinator_; }
  const std::filesystem::path& db_path() const { return db_path_; }

  // A channel of its own (not shared with other stubs), as a separate worker process would have.
  std::shared_ptr<grpc::Channel> own_channel() const {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return open_channel(address(), security_, args);
  }

 private:
  static ServerOptions options_for(const std::filesystem::path& db_path,
                                   const std::function<void(ServerOptions&)>& configure) {
    ServerOptions options;
    options.database = db_path.string();
    options.shared_root = db_path.parent_path() / "shared";
    if (configure) configure(options);
    return options;
  }

  std::filesystem::path db_path_;
  Store store_;
  std::shared_ptr<Tokens> tokens_ = std::make_shared<Tokens>(db_path_.string());
  ClientSecurity security_;
  std::int64_t worker_token_id_ = 0;
  ServerOptions options_;
  CoordinatorService coordinator_{store_, options_};
  WorkerGatewayService gateway_{store_, options_};
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

// One ReportMetrics stream holding one request of `points` for the job's attempt, as a worker's relay sends it;
// the coordinator's status.
inline grpc::Status report_metrics(v1::WorkerGateway::Stub& stub, const std::string& job_id, int attempt,
                                   const std::vector<v1::MetricPoint>& points) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::ReportMetricsResponse response;
  auto writer = stub.ReportMetrics(&context, &response);
  v1::ReportMetricsRequest request;
  request.set_job_id(job_id);
  request.set_attempt(attempt);
  for (const auto& p : points) *request.add_points() = p;
  writer->Write(request);
  writer->WritesDone();
  return writer->Finish();
}

}  // namespace gammalab::testing
