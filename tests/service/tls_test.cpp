// TLS for gRPC and HTTP with a CA and certificates this test makes with the openssl command: a client that
// trusts the CA gets in; a plaintext client and a client trusting another CA do not; with a client CA set,
// the WorkerGateway refuses a worker without a client certificate while the CLI's service needs none.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdlib>
#include <fstream>

#include "server/http_api.h"
#include "tests/service/in_process_coordinator.h"

namespace gammalab::testing {
namespace {

void run(const std::string& command) {
  ASSERT_EQ(std::system((command + " >/dev/null 2>&1").c_str()), 0) << command;
}

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), {}};
}

// A CA, a certificate for 127.0.0.1 signed by it, a client certificate signed by it, and an unrelated CA.
class Tls : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::filesystem::path(temp_db("tls").parent_path() / "pki");
    std::filesystem::create_directories(*dir_);
    const std::string d = dir_->string();
    auto ca = [&](const std::string& name) {
      run("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=" + name + " -keyout " + d + "/" + name +
          ".key -out " + d + "/" + name + ".pem");
    };
    ca("ca");
    ca("other-ca");
    auto signed_cert = [&](const std::string& name, const std::string& ext) {
      run("openssl req -newkey rsa:2048 -nodes -subj /CN=" + name + " -keyout " + d + "/" + name + ".key -out " + d +
          "/" + name + ".csr");
      std::ofstream(*dir_ / (name + ".ext")) << ext << "\n";
      run("openssl x509 -req -in " + d + "/" + name + ".csr -CA " + d + "/ca.pem -CAkey " + d +
          "/ca.key -CAcreateserial -days 2 -extfile " + d + "/" + name + ".ext -out " + d + "/" + name + ".pem");
    };
    signed_cert("server", "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth");
    signed_cert("worker", "extendedKeyUsage=clientAuth");
  }
  static void TearDownTestSuite() {
    std::filesystem::remove_all(dir_->parent_path());
    delete dir_;
  }
  static std::string file(const std::string& name) { return (*dir_ / name).string(); }

  ServerOptions tls_options(bool client_ca) const {
    ServerOptions o;
    o.tls_cert = file("server.pem");
    o.tls_key = file("server.key");
    if (client_ca) o.tls_client_ca = file("ca.pem");
    return o;
  }

  static inline std::filesystem::path* dir_ = nullptr;
};

grpc::StatusCode list_workers(const std::string& address, const ClientSecurity& security) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  auto stub = v1::Coordinator::NewStub(open_channel(address, security, args));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::ListWorkersResponse response;
  return stub->ListWorkers(&context, {}, &response).error_code();
}

grpc::StatusCode register_worker(const std::string& address, const ClientSecurity& security) {
  auto stub = v1::WorkerGateway::NewStub(open_channel(address, security));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::RegisterWorkerRequest request;
  request.set_hostname("tls-worker");
  request.set_slots(1);
  v1::RegisterWorkerResponse response;
  return stub->RegisterWorker(&context, request, &response).error_code();
}

// A coordinator (its store and tokens from InProcessCoordinator) listening with TLS on another port.
struct TlsListener {
  TlsListener(InProcessCoordinator& c, const ServerOptions& options)
      : options_(options),
        coordinator(c.store(), options_),
        gateway(c.store(), options_),
        server(start_grpc_server("--listen", "127.0.0.1:0", {&coordinator, &gateway}, port,
                                 grpc_server_credentials(options_, c.shared_tokens()))) {}
  ~TlsListener() { server->Shutdown(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
  ServerOptions options_;
  CoordinatorService coordinator;
  WorkerGatewayService gateway;
  int port = 0;
  std::unique_ptr<grpc::Server> server;
};

TEST_F(Tls, GrpcNeedsTheServersCa) {
  InProcessCoordinator c("tls-grpc");
  TlsListener listener(c, tls_options(false));
  ClientSecurity good;
  good.token = c.user_token();
  good.tls_ca_pem = slurp(file("ca.pem"));
  EXPECT_EQ(list_workers(listener.address(), good), grpc::StatusCode::OK);
  ClientSecurity plaintext;
  plaintext.token = c.user_token();
  EXPECT_EQ(list_workers(listener.address(), plaintext), grpc::StatusCode::UNAVAILABLE);
  ClientSecurity wrong_ca = good;
  wrong_ca.tls_ca_pem = slurp(file("other-ca.pem"));
  EXPECT_EQ(list_workers(listener.address(), wrong_ca), grpc::StatusCode::UNAVAILABLE);
  ClientSecurity no_token = good;
  no_token.token.clear();
  EXPECT_EQ(list_workers(listener.address(), no_token), grpc::StatusCode::UNAUTHENTICATED) << "TLS is not a token";
}

TEST_F(Tls, WithAClientCaWorkersNeedACertificate) {
  InProcessCoordinator c("tls-mutual");
  TlsListener listener(c, tls_options(true));
  ClientSecurity worker;
  worker.token = c.worker_token();
  worker.tls_ca_pem = slurp(file("ca.pem"));
  EXPECT_EQ(register_worker(listener.address(), worker), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(c.store().list_workers(60000).empty());
  worker.tls_cert_pem = slurp(file("worker.pem"));
  worker.tls_key_pem = slurp(file("worker.key"));
  EXPECT_EQ(register_worker(listener.address(), worker), grpc::StatusCode::OK);
  ClientSecurity user;
  user.token = c.user_token();
  user.tls_ca_pem = slurp(file("ca.pem"));
  EXPECT_EQ(list_workers(listener.address(), user), grpc::StatusCode::OK) << "the CLI needs no client certificate";
}

TEST_F(Tls, HttpsNeedsTheServersCa) {
  InProcessCoordinator c("tls-http");
  ServerOptions options = tls_options(false);
  options.http_address = "127.0.0.1:0";
  HttpApi api(c.store(), options, &c.tokens());
  const httplib::Headers bearer{{"Authorization", "Bearer " + c.user_token()}};
  httplib::SSLClient good("127.0.0.1", api.port());
  good.set_ca_cert_path(file("ca.pem").c_str());
  good.enable_server_certificate_verification(true);
  auto res = good.Get("/api/sweeps", bearer);
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  EXPECT_EQ(res->status, 200);
  httplib::SSLClient wrong("127.0.0.1", api.port());
  wrong.set_ca_cert_path(file("other-ca.pem").c_str());
  wrong.enable_server_certificate_verification(true);
  EXPECT_FALSE(wrong.Get("/api/sweeps", bearer));
  httplib::Client plaintext("127.0.0.1", api.port());
  plaintext.set_read_timeout(5, 0);
  auto plain = plaintext.Get("/api/sweeps", bearer);
  EXPECT_TRUE(!plain || plain->status != 200);
}

}  // namespace
}  // namespace gammalab::testing
