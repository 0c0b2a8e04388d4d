#include "rpc/client_channel.h"

#include "core/file_util.h"

#include <grpcpp/support/client_interceptor.h>

#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace gammalab {

namespace {

constexpr std::size_t kMaxTokenFileBytes = 4096;
constexpr std::size_t kMaxPemBytes = 1 << 20;
constexpr std::string_view kGatewayPrefix = "/gammalab.v1.WorkerGateway/";


// Adds the token to each call's metadata before it is sent.
class TokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit TokenInterceptor(const std::string* token) : token_(token) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->insert({"authorization", "Bearer " + *token_});
    }
    methods->Proceed();
  }

 private:
  const std::string* token_;
};

class TokenInterceptorFactory final : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  TokenInterceptorFactory(std::string token, std::string gateway_token)
      : token_(std::move(token)), gateway_token_(std::move(gateway_token)) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(grpc::experimental::ClientRpcInfo* info) override {
    const bool gateway = !gateway_token_.empty() && std::string_view(info->method()).substr(0, kGatewayPrefix.size()) ==
                                                        kGatewayPrefix;
    const std::string& token = gateway ? gateway_token_ : token_;
    return token.empty() ? nullptr : new TokenInterceptor(&token);
  }

 private:
  const std::string token_;
  const std::string gateway_token_;
};

ClientSecurity& defaults() {
  static ClientSecurity security;
  return security;
}

}  // namespace

std::string read_token(const std::string& token_file) {
  std::string token;
  std::string source;
  if (!token_file.empty()) {
    token = read_file_bounded("--token-file", token_file, kMaxTokenFileBytes);
    source = "--token-file " + token_file;
  } else if (const char* env = std::getenv(kTokenEnv); env != nullptr) {
    token = env;
    source = kTokenEnv;
  } else {
    return "";
  }
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' ')) token.pop_back();
  if (token.empty()) throw std::invalid_argument(source + ": empty (expected a token from `gammalab-server token create`)");
  for (unsigned char c : token) {
    if (c <= 0x20 || c >= 0x7f) {
      throw std::invalid_argument(source + ": expected one token (printable ASCII, no spaces, one line)");
    }
  }
  return token;
}

ClientSecurity client_security(const std::string& token_file, const std::string& tls_ca, const std::string& tls_cert,
                               const std::string& tls_key) {
  ClientSecurity security;
  security.token = read_token(token_file);
  if (!tls_ca.empty()) security.tls_ca_pem = read_file_bounded("--tls-ca", tls_ca, kMaxPemBytes);
  if (tls_cert.empty() != tls_key.empty()) throw std::invalid_argument("--tls-cert and --tls-key: give both or neither");
  if (!tls_cert.empty()) {
    if (tls_ca.empty()) throw std::invalid_argument("--tls-cert: needs --tls-ca (a client certificate is for TLS)");
    security.tls_cert_pem = read_file_bounded("--tls-cert", tls_cert, kMaxPemBytes);
    security.tls_key_pem = read_file_bounded("--tls-key", tls_key, kMaxPemBytes);
  }
  return security;
}

std::shared_ptr<grpc::Channel> open_channel(const std::string& address, const ClientSecurity& security,
                                            const grpc::ChannelArguments& args) {
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (security.tls_ca_pem.empty()) {
    credentials = grpc::InsecureChannelCredentials();
  } else {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = security.tls_ca_pem;
    ssl.pem_cert_chain = security.tls_cert_pem;
    ssl.pem_private_key = security.tls_key_pem;
    credentials = grpc::SslCredentials(ssl);
  }
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<TokenInterceptorFactory>(security.token, security.gateway_token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(address, credentials, args, std::move(interceptors));
}

void set_default_client_security(ClientSecurity security) { defaults() = std::move(security); }
const ClientSecurity& default_client_security() { return defaults(); }

}  // namespace gammalab
