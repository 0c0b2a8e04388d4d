// A coordinator refuses to start on a port another one already listens on (gRPC and HTTP), with an error
// naming the flag and the address, instead of sharing the port through SO_REUSEPORT and answering in turn.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "server/grpc_listener.h"
#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"
#include "worker/child_process.h"

namespace gammalab::testing {
namespace {

TEST(PortInUse, ASecondGrpcServerOnThePortFailsNamingTheAddress) {
  InProcessCoordinator first("grpc-port");
  CoordinatorService coordinator(first.store(), ServerOptions{});
  int port = -1;
  try {
    auto second = start_grpc_server("--listen", first.address(), {&coordinator}, port);
    ADD_FAILURE() << "a second server started on " << first.address() << " (port " << port << ")";
    second->Shutdown();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--listen " + first.address()), std::string::npos) << e.what();
  }
}

TEST(PortInUse, ASecondHttpServerOnThePortFailsNamingTheAddress) {
  const auto db = temp_db("http-port");
  Store store(db.string());
  ServerOptions options;
  options.http_address = "127.0.0.1:0";
  HttpApi first(store, options);
  ServerOptions same = options;
  same.http_address = "127.0.0.1:" + std::to_string(first.port());
  try {
    HttpApi second(store, same);
    ADD_FAILURE() << "a second HTTP server started on " << same.http_address;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("--http " + same.http_address), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(db.parent_path());
}

// The real binary: the second process exits non-zero and says why on stderr; the first keeps serving.
TEST(PortInUse, TheSecondServerProcessExitsWithAnErrorNamingTheAddress) {
  const auto dir = temp_db("server-port").parent_path();
  const std::string server = std::string(GAMMALAB_BINARY_DIR) + "/server/gammalab-server";
  auto start = [&](const std::string& name, const std::string& listen, const std::string& http) {
    return std::make_unique<ChildProcess>(
        std::vector<std::string>{server, "--listen", listen, "--http", http, "--db", (dir / (name + ".db")).string(),
                                 "--shared-root", (dir / (name + "-shared")).string()},
        std::vector<std::string>{}, (dir / (name + ".log")).string());
  };
  auto read = [&](const std::string& name) {
    std::ifstream in(dir / (name + ".log"));
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  auto first = start("first", "127.0.0.1:0", "127.0.0.1:0");
  const auto line = first->read_line();
  ASSERT_TRUE(line) << read("first");
  const auto ports = nlohmann::json::parse(*line);
  const std::string grpc = "127.0.0.1:" + std::to_string(ports.at("grpc_port").get<int>());
  const std::string http = "127.0.0.1:" + std::to_string(ports.at("http_port").get<int>());

  auto second = start("second", grpc, "");
  if (second->read_line()) {
    ADD_FAILURE() << "the second server said it listens on " << grpc;
    second->signal(SIGKILL);
  }
  EXPECT_EQ(second->wait(), 1);
  EXPECT_NE(read("second").find("--listen " + grpc), std::string::npos) << read("second");

  auto third = start("third", "127.0.0.1:0", http);
  if (third->read_line()) {
    ADD_FAILURE() << "the third server said it listens on " << http;
    third->signal(SIGKILL);
  }
  EXPECT_EQ(third->wait(), 1);
  EXPECT_NE(read("third").find("--http " + http), std::string::npos) << read("third");

  // The first one is still the only one there.
  first->signal(SIGTERM);
  EXPECT_EQ(first->wait(), 0) << read("first");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace gammalab::testing
