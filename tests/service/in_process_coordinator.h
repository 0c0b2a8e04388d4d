#pragma once
// The coordinator's gRPC services on a real loopback port inside the test process, over a real SQLite file.
#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "server/coordinator_service.h"
#include "server/grpc_listener.h"
#include "server/worker_gateway_service.h"
#include "tests/service/test_sweeps.h"

namespace gammalab::testing {

class InProcessCoordinator {
 public:
  explicit InProcessCoordinator(const std::string& name) : db_path_(temp_db(name)), store_(db_path_.string()) {
    options_.database = db_path_.string();
    options_.shared_root = db_path_.parent_path() / "shared";
    server_ = start_grpc_server("--listen", "127.0.0.1:0", {&coordinator_, &gateway_}, port_);
  }
  ~InProcessCoordinator() {
    server_->Shutdown();
    std::filesystem::remove_all(db_path_.parent_path());
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  Store& store() { return store_; }
  const WorkerGatewayService& gateway() const { return gateway_; }
  const std::filesystem::path& db_path() const { return db_path_; }

  // A channel of its own (not shared with other stubs), as a separate worker process would have.
  std::shared_ptr<grpc::Channel> own_channel() const {
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    return grpc::CreateCustomChannel(address(), grpc::InsecureChannelCredentials(), args);
  }

 private:
  std::filesystem::path db_path_;
  Store store_;
  ServerOptions options_;
  CoordinatorService coordinator_{store_, options_};
  WorkerGatewayService gateway_{store_, options_};
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
};

}  // namespace gammalab::testing
