// The gRPC token check (server/grpc_auth.h).
#include "server/grpc_auth.h"

#include <grpc/grpc_security_constants.h>
#include <grpcpp/security/auth_metadata_processor.h>

#include <charconv>

#include "gammalab/v1/gammalab.grpc.pb.h"
#include "server/tls_files.h"

namespace gammalab {

namespace {

// The role a method's service needs, from the call's ":path" ("/gammalab.v1.WorkerGateway/Heartbeat").
std::optional<Role> role_for_path(std::string_view path) {
  auto in_service = [&](std::string_view service) {
    return path.size() > service.size() + 2 && path[0] == '/' && path.substr(1, service.size()) == service &&
           path[service.size() + 1] == '/';
  };
  if (in_service(v1::WorkerGateway::service_full_name())) return Role::kWorker;
  if (in_service(v1::Coordinator::service_full_name())) return Role::kUser;
  return std::nullopt;
}

class TokenCheck final : public grpc::AuthMetadataProcessor {
 public:
  TokenCheck(std::shared_ptr<Tokens> tokens, bool workers_need_certificates)
      : tokens_(std::move(tokens)), workers_need_certificates_(workers_need_certificates) {}

  // Blocking (the default): verify() reads SQLite, so gRPC runs this off its network threads.
  grpc::Status Process(const InputMetadata& metadata, grpc::AuthContext* context, OutputMetadata*,
                       OutputMetadata*) override {
    auto path = metadata.find(":path");
    const std::optional<Role> needed =
        path == metadata.end() ? std::nullopt : role_for_path(std::string_view(path->second.data(), path->second.size()));
    if (workers_need_certificates_ && needed == Role::kWorker && context->FindPropertyValues(GRPC_X509_PEM_CERT_PROPERTY_NAME).empty()) {
      return {grpc::StatusCode::UNAUTHENTICATED, "the WorkerGateway needs a client certificate (mutual TLS)"};
    }
    if (tokens_ == nullptr) return grpc::Status::OK;
    auto header = metadata.find("authorization");
    if (header == metadata.end()) {
      return {grpc::StatusCode::UNAUTHENTICATED,
              "no token: send \"authorization: Bearer <token>\" (gammalab-server token create)"};
    }
    const std::optional<std::string_view> token =
        bearer_token(std::string_view(header->second.data(), header->second.size()));
    const std::optional<Caller> caller = token ? tokens_->verify(*token) : std::nullopt;
    if (!caller) return {grpc::StatusCode::UNAUTHENTICATED, "invalid or revoked token"};
    if (!needed) return {grpc::StatusCode::PERMISSION_DENIED, "no such service"};
    if (caller->role != *needed) {
      return {grpc::StatusCode::PERMISSION_DENIED,
              "a " + std::string(role_name(caller->role)) + " token cannot call this service (it needs a " +
                  std::string(role_name(*needed)) + " token)"};
    }
    // Nothing is written to `context`: gRPC hands every call of one connection the same AuthContext, and
    // AddProperty on it from concurrent calls corrupted its property list (and grew it by one entry a call).
    // caller_token_id reads the id from the call's own, just verified, authorization header instead.
    return grpc::Status::OK;
  }

 private:
  const std::shared_ptr<Tokens> tokens_;
  bool workers_need_certificates_;
};

}  // namespace

std::shared_ptr<grpc::ServerCredentials> grpc_server_credentials(const ServerOptions& options,
                                                                 std::shared_ptr<Tokens> tokens) {
  const std::optional<TlsFiles> tls = read_tls_files(options);
  std::shared_ptr<grpc::ServerCredentials> credentials;
  if (tls) {
    grpc::SslServerCredentialsOptions ssl(tls->client_ca_pem.empty()
                                              ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                              // Asked for and verified when sent; the processor requires one
                                              // of workers only, so the CLI works without a certificate.
                                              : GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
    ssl.pem_root_certs = tls->client_ca_pem;
    ssl.pem_key_cert_pairs.push_back({tls->key_pem, tls->cert_pem});
    credentials = grpc::SslServerCredentials(ssl);
  } else {
    // Plaintext. gRPC 1.51's InsecureServerCredentials() aborts on SetAuthMetadataProcessor; XdsServerCredentials
    // with insecure fallback and no xDS configuration is the same plaintext listener built on the core
    // credentials that do run a metadata processor.
    credentials = grpc::XdsServerCredentials(grpc::InsecureServerCredentials());
  }
  const bool need_certificates = tls && !tls->client_ca_pem.empty();
  if (tokens != nullptr || need_certificates) {
    credentials->SetAuthMetadataProcessor(std::make_shared<TokenCheck>(std::move(tokens), need_certificates));
  }
  return credentials;
}

std::optional<std::int64_t> caller_token_id(const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  const auto header = metadata.find("authorization");
  if (header == metadata.end()) return std::nullopt;
  const std::optional<std::string_view> token =
      bearer_token(std::string_view(header->second.data(), header->second.size()));
  if (!token) return std::nullopt;
  return token_id_of(*token);
}

}  // namespace gammalab
